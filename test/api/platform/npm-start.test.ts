/**
 * `npm start` as a new user runs it (issue 30, item 4): it binds to 127.0.0.1 unless HOST says otherwise,
 * its banner prints the address it bound, and SIGTERM to the npm process stops the server: the port
 * closes and no node process is left behind (before: npm and its shell exited, node kept running,
 * re-parented to PID 1, still listening on every interface). No npm command warns about an unknown
 * project config (the `.npmrc` that caused it is gone).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../../helpers/processes.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'sello-npm-start-'));
let npm: ChildProcess | undefined;
const seen = new Set<number>();
afterAll(() => {
  // Whatever a failed run left: only the processes this test started (by pid).
  for (const pid of seen) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every descendant of `pid` (Linux /proc: children of each of its threads). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number): void => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(pid);
  return out;
}

/** A live (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

/** Local addresses (hex, as /proc/net/tcp{,6} print them) listening on `port`. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4) continue;
      const [addr, p] = cols[1]!.split(':');
      if (p === hexPort && cols[3] === '0A') found.push(addr!);
    }
  }
  return found;
}

const refuses = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

describe('npm start', () => {
  it('listens on 127.0.0.1 only, says so, and stops with its node process on SIGTERM to npm', async () => {
    const port = await freePort();
    const { HOST: _host, PORT: _port, DATA_DIR: _dir, ...env } = process.env;
    npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', WORKER_THREADS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    seen.add(npm.pid!);
    let out = '';
    npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => npm!.once('exit', () => r()));
    await waitFor(() => out.includes('Sello is listening on'), 180_000, `npm start listening (${out.slice(-1500)})`);
    const tree = descendants(npm.pid!);
    for (const pid of tree) seen.add(pid);
    expect(tree.length).toBeGreaterThan(0);

    // Bound to loopback only, and the banner names it.
    expect(out).toContain(`Sello is listening on http://127.0.0.1:${port}\n`);
    expect(out).not.toContain('every network interface');
    expect(out).toContain('Only this machine can connect');
    expect(listeners(port)).toEqual(['0100007F']);
    expect(out).not.toMatch(/Unknown (project|user|env) config/);
    const r = await fetch(`http://127.0.0.1:${port}/v1/status`);
    expect(r.status).toBeLessThan(500);

    npm.kill('SIGTERM');
    await exited;
    await waitFor(async () => (await refuses(port)) && tree.every((pid) => !alive(pid)), 30_000, `server stopped (alive: ${tree.filter(alive).join(', ')})`);
    expect(listeners(port)).toEqual([]);
  }, 240_000);

  it('no npm command warns about an unknown project config', async () => {
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile('npm', ['pkg', 'get', 'name'], { cwd: ROOT }, (error, _stdout, err) => (error ? reject(error) : resolve(err))),
    );
    expect(stderr).not.toMatch(/Unknown (project|user|env) config/);
    expect(existsSync(join(ROOT, '.npmrc'))).toBe(false);
  });
});
