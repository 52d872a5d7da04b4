/**
 * `--help` on every operator CLI command (issue 30, item 7), run as the README says (a process, no
 * server, no DATA_DIR needed); the help table, the CLI's dispatch and the README's list name the same commands.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS, cliHelp } from '../../../apps/cli/help.ts';

const run = promisify(execFile);
const DATA_DIR = mkdtempSync(path.join(tmpdir(), 'sello-cli-help-'));
const cli = (...args: string[]) => run(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], { env: { ...process.env, DATA_DIR, LOG_LEVEL: 'silent' } });

describe('operator CLI --help', () => {
  it('lists every command the CLI dispatches, and the README names each of them', () => {
    const source = readFileSync('apps/cli/cli.ts', 'utf8');
    const dispatched = [...source.matchAll(/case '([a-z]+(?: [a-z]+)?)':/g)].map((m) => m[1]!);
    expect(dispatched).toEqual(expect.arrayContaining(['tenant create', 'tenant plan', 'dashboard link', 'replay']));
    dispatched.push('migrate'); // handled before the switch
    const helped = CLI_COMMANDS.map((c) => c.name);
    for (const name of dispatched) expect(helped, name).toContain(name);
    const readme = readFileSync('README.md', 'utf8');
    for (const name of ['tenant create', 'tenant plan', 'tenant limits', 'key create', 'key revoke', 'credits grant', 'dashboard link', 'signing audit', 'replay', 'migrate']) {
      expect(readme, name).toContain(`npm run cli -- ${name}`);
    }
    expect(readme).toContain('npm run cli -- --help');
  });

  it('--help alone lists the commands; `--help` or `-h` after a command prints its usage with exit 0, before any database is opened', async () => {
    // Each run is a process (as the README says); the help check comes before the command's dispatch, so
    // every command answers it the same way: four processes here, the text of the others from cliHelp.
    const [all, create, link, tenant] = await Promise.all([cli('--help'), cli('tenant', 'create', '--help'), cli('dashboard', 'link', '-h'), cli('tenant', '--help')]);
    for (const c of CLI_COMMANDS) expect(all.stdout, c.name).toContain(`  ${`${c.name} ${c.usage}`.trim()}\n`);
    expect(create.stdout.split('\n')[0]).toBe('usage: npm run cli -- tenant create --name NAME --plan free|basic|pro|enterprise');
    expect(link.stdout.split('\n')[0]).toBe('usage: npm run cli -- dashboard link --tenant ID [--minutes N]');
    expect(tenant.stdout).toContain('tenant plan --tenant ID');
    expect(tenant.stdout).not.toContain('key create');
    for (const r of [all, create, link, tenant]) expect(r.stderr).toBe('');
    for (const c of CLI_COMMANDS) {
      const text = cliHelp(c.name.split(' '));
      expect(text.split('\n')[0], c.name).toBe(`usage: npm run cli -- ${`${c.name} ${c.usage}`.trim()}`);
      expect(text).toContain(c.summary);
    }
  }, 300_000);

  it('an unknown command still answers the JSON usage error (exit 64)', async () => {
    const r = await cli('nope').catch((e: { code: number; stderr: string }) => e);
    expect((r as { code: number }).code).toBe(64);
    expect(JSON.parse((r as { stderr: string }).stderr.trim())).toMatchObject({ error: 'usage' });
  }, 300_000);
});
