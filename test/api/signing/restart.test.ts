/**
 * The signing lifecycle survives a crash: a real server process is killed (SIGKILL) right after the first
 * signature, a new one is started on the same data directory, and the second signer is still invited
 * (from the log: dispatcher checkpoint + durable workflow state) and can sign.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../apps/api/config.ts';
import { createPlatform } from '../../../apps/platform/platform.ts';
import { createApiKey, createTenant } from '../../../domain/tenancy/operations.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

const ROOT = join(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(join(tmpdir(), 'sello-restart-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The environment of an embedded deployment: CI exports DATABASE_URL (for the PostgreSQL contract tests),
 * which would select PostgreSQL read models shared with every other test, whose `signing-dispatch`
 * checkpoint is ahead of this fresh SQLite log (the dispatcher then never sees the document).
 */
function embeddedEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _unused, READ_MODELS: _r, ...rest } = process.env;
  return rest;
}

async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/server.ts'], {
    cwd: ROOT,
    env: { ...embeddedEnv(), DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP: 'false', LOG_LEVEL: 'silent', WORKFLOW_POLL_MS: '20', WORKER_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  await waitFor(() => out.includes('is listening'), 120_000, `server start (${out.slice(-500)})`);
  return child;
}

async function sign(base: string, link: string) {
  const id = /\/sign\/(doc_[0-9a-f]{24})/.exec(link)![1]!;
  const t = new URL(base + link).searchParams.get('t')!;
  return fetch(`${base}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Firma' }).toString() });
}

describe('signing across a crash', () => {
  it('invites the second signer after the server was killed between the two signatures', async () => {
    const setup = await createPlatform(loadConfig({}, { DATA_DIR: dataDir, BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }), { kind: 'cli' });
    const { tenantId } = await createTenant({ store: setup.events, name: 'Restart', plan: 'pro' });
    const { key } = await createApiKey({ store: setup.events, tenantId, permissions: ['read', 'write'] });
    await setup.close();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${key}` };
    const first = await startServer(port);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(2))], { type: 'application/pdf' }), 'r.pdf');
    form.set('title', 'Crash test');
    form.set('signers', JSON.stringify([{ email: 'one@example.com', name: 'One', order: 1 }, { email: 'two@example.com', name: 'Two', order: 2 }]));
    const created = (await (await fetch(`${base}/v1/signing/documents`, { method: 'POST', body: form, headers: auth })).json()) as any;
    const id = created.data.document_id as string;
    expect((await fetch(`${base}/v1/signing/documents/${id}/send-invitations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    const m1 = await waitFor(() => readOutbox(dataDir).find((m) => m.to.includes('one@example.com')), 180_000, 'first invitation');
    expect((await sign(base, linkOf(m1))).status).toBe(200);
    first.kill('SIGKILL'); // no graceful shutdown: whatever was in flight is lost with the process
    await new Promise((r) => first.once('exit', r));

    await startServer(port);
    const m2 = await waitFor(() => readOutbox(dataDir).filter((m) => m.to.includes('two@example.com')).at(-1), 180_000, 'second invitation after restart');
    expect((await sign(base, linkOf(m2))).status).toBe(200);
    const doc = (await (await fetch(`${base}/v1/signing/documents/${id}`, { headers: auth })).json()) as any;
    expect(doc.data.status).toBe('signed');
    expect(doc.data.signers.map((x: any) => x.status)).toEqual(['signed', 'signed']);
    // The first signer was invited exactly once (no replayed side effect).
    expect(readOutbox(dataDir).filter((m) => m.to.includes('one@example.com'))).toHaveLength(1);
    const fin = await fetch(`${base}/v1/signing/documents/${id}/finalize`, { method: 'POST', headers: auth });
    expect(fin.status).toBe(200);
  }, 600_000);
});
