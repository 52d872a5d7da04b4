import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readListenOrigin } from '../../../apps/api/listen-address.ts';

const run = promisify(execFile);

/**
 * Issue 31 item 9: `cli dashboard link` printed `http://localhost:3000/...` whatever port the server was
 * started on (the CLI runs in another shell, without the server's PORT). The server records the address
 * it bound in DATA_DIR; the CLI prints links there unless PUBLIC_BASE_URL is set.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'sello-cli-link-'));
let server: ChildProcess | null = null;
afterAll(() => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The environment of a shell that never saw the server's PORT or HOST. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...extra };
  delete env.PORT;
  delete env.HOST;
  if (!extra.PUBLIC_BASE_URL) delete env.PUBLIC_BASE_URL;
  return env;
}

async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], { env });
  return JSON.parse(stdout.trim());
}

describe('cli dashboard link', () => {
  it('points at the port the server listens on (PORT=0: a free port), not localhost:3000; PUBLIC_BASE_URL wins', async () => {
    server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/server.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP: 'false', LOG_LEVEL: 'warn', PUBLIC_BASE_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 150_000;
    while (!existsSync(join(dataDir, 'listening.json'))) {
      if (server.exitCode !== null) throw new Error(`server exited: ${stderr.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error('server did not listen in time');
      await new Promise((r) => setTimeout(r, 100));
    }
    const origin = readListenOrigin(dataDir)!;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(origin).not.toBe('http://127.0.0.1:3000');

    const { tenant_id } = await cli(shellEnv(), 'tenant', 'create', '--name', 'Link Co', '--plan', 'basic');
    const { url } = await cli(shellEnv(), 'dashboard', 'link', '--tenant', tenant_id);
    expect(url.startsWith(`${origin}/dashboard/login?token=dl_`), url).toBe(true);
    // The link reaches this server and signs in (a redirect to the usage page with a session cookie).
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status, await res.clone().text()).toBeLessThan(400);
    expect(res.headers.get('set-cookie') ?? '').toContain('sello_dashboard=');

    const branded = await cli(shellEnv({ PUBLIC_BASE_URL: 'https://panel.example.mx/' }), 'dashboard', 'link', '--tenant', tenant_id);
    expect(branded.url.startsWith('https://panel.example.mx/dashboard/login?token=dl_')).toBe(true);
  }, 240_000);
});
