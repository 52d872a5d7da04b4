/**
 * Start-up refusal (issue 28, docs/operations.md "Privacy master key"): a process on a shared event store
 * (EVENT_STORE=postgres) without PRIVACY_MASTER_KEY would generate a master key of its own under its
 * DATA_DIR and could not open what the other processes sealed. `npm start` and the CLI refuse to start,
 * before any store is opened (the DATABASE_URL here answers nowhere) and without creating a key file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../apps/api/config.ts';
import { PRIVACY_MASTER_KEY_FILE, sharedMasterKeyProblem } from '../../infra/secrets/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'sello-master-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Nothing listens on port 1: a process that got as far as connecting would fail otherwise, not with the refusal. */
const NOWHERE = 'postgres://nobody@127.0.0.1:1/none';
const KEY = 'ab'.repeat(32);

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--no-warnings', '--import', 'tsx', script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 }, (_error, _stdout, stderr) =>
      resolve({ code: child.exitCode, stderr }));
  });
}

describe('shared event store without PRIVACY_MASTER_KEY', () => {
  it('sharedMasterKeyProblem: only a shared store without the variable is refused; the CLI may use an existing key file', () => {
    const dir = tempDir();
    const cfg = (env: Record<string, string>) => loadConfig({}, { DATA_DIR: dir, ...env });
    expect(sharedMasterKeyProblem(cfg({}))).toBeNull();
    expect(sharedMasterKeyProblem(cfg({ EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE, PRIVACY_MASTER_KEY: KEY }))).toBeNull();
    const problem = sharedMasterKeyProblem(cfg({ EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE }));
    expect(problem).toMatch(/EVENT_STORE=postgres .*PRIVACY_MASTER_KEY must be set/);
    expect(sharedMasterKeyProblem(cfg({ EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE }), { allowExistingFile: true })).toBe(problem);
    writeFileSync(path.join(dir, PRIVACY_MASTER_KEY_FILE), `${KEY}\n`);
    expect(sharedMasterKeyProblem(cfg({ EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE }), { allowExistingFile: true })).toBeNull();
    // An API process never takes the file: another process of the deployment would not have it.
    expect(sharedMasterKeyProblem(cfg({ EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE }))).toBe(problem);
  });

  it('npm start exits 1 with the message and creates no key file', async () => {
    const dir = tempDir();
    const r = await run('apps/api/server.ts', [], { DATA_DIR: dir, PORT: '0', EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE, BOOTSTRAP: 'true' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to start: EVENT_STORE=postgres is shared by every process of the deployment, so PRIVACY_MASTER_KEY must be set');
    expect(existsSync(path.join(dir, PRIVACY_MASTER_KEY_FILE))).toBe(false);
  }, 90_000);

  it('the CLI refuses without the variable or an existing key file, and rotate-master-key refuses without the variable', async () => {
    const dir = tempDir();
    const env = { DATA_DIR: dir, EVENT_STORE: 'postgres', DATABASE_URL: NOWHERE };
    const replay = await run('apps/cli/cli.ts', ['replay'], env);
    expect(replay.code).toBe(1);
    expect(JSON.parse(replay.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: 'error', message: expect.stringContaining('PRIVACY_MASTER_KEY must be set') });
    const rotate = await run('apps/cli/cli.ts', ['privacy', 'rotate-master-key'], env);
    expect(rotate.code).toBe(1);
    expect(rotate.stderr).toContain('PRIVACY_MASTER_KEY must be set');
    expect(existsSync(path.join(dir, PRIVACY_MASTER_KEY_FILE))).toBe(false);
    // With the key file of the process whose DATA_DIR it is run beside, the CLI goes on (and fails on the unreachable database).
    writeFileSync(path.join(dir, PRIVACY_MASTER_KEY_FILE), `${KEY}\n`);
    const beside = await run('apps/cli/cli.ts', ['replay'], env);
    expect(beside.code).not.toBe(0);
    expect(beside.stderr).not.toContain('PRIVACY_MASTER_KEY must be set');
  }, 180_000);
});
