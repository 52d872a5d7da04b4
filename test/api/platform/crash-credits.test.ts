import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../../infra/event-store/sqlite/sqlite-event-store.ts';
import { CreditLedger } from '../../../domain/credits/credit-ledger.ts';
import { createApiKey, createTenant, setTenantLimits } from '../../../domain/tenancy/operations.ts';
import { PLANS } from '../../../domain/plans/plans.ts';
import { faceCrop } from '../face/fixtures.ts';

/**
 * Issue 18 item 2: the real server (`npm start`, its own process) is killed with SIGKILL while 40
 * concurrent `POST /v1/face/detect` calls are in flight, then started again on the same DATA_DIR. The
 * reservations the dead process held are released at start-up: the first balance call shows
 * `reserved_credits` 0 and a balance lowered by exactly the 2xx answers the client received.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'sello-crash-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `apps/api/server.ts` on a free port; resolves with its base URL once it listens. */
function startServer(): Promise<{ url: string; child: ChildProcess; readyAt: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/server.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP: 'false', LOG_LEVEL: 'warn', WORKER_THREADS: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, child, readyAt: performance.now() });
    });
    child.on('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening: ${err.slice(-2000)}`)));
  });
}

describe('a server killed mid-burst', () => {
  it('holds no credits after a restart, and charged exactly the 2xx answers', async () => {
    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
    const { tenantId } = await createTenant({ store, name: 'Crash test', plan: 'pro' });
    const { key } = await createApiKey({ store, tenantId, permissions: ['read', 'write'], test: false });
    await setTenantLimits({ store, tenantId, requestsPerMinute: null, concurrentRequests: null });
    await store.close();

    const first = await startServer();
    const image = await faceCrop('a');
    const auth = { authorization: `Bearer ${key}` };
    let ok = 0;
    let other = 0;
    let killed = false;
    let killOnce: () => void = () => undefined;
    const killedPromise = new Promise<void>((r) => (killOnce = r));
    const calls = Array.from({ length: 40 }, async () => {
      const body = new FormData();
      body.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'face.jpg');
      try {
        const r = await fetch(`${first.url}/v1/face/detect`, { method: 'POST', body, headers: auth });
        await r.arrayBuffer();
        if (killed) return; // answered after the kill was sent: not counted either way
        if (r.status >= 200 && r.status < 300) ok++;
        else other++;
        if (ok >= 3 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
          killOnce();
        }
      } catch {
        // connection reset by the kill
      }
    });
    await Promise.race([killedPromise, Promise.all(calls)]);
    await new Promise<void>((r) => (first.child.exitCode !== null || first.child.signalCode !== null ? r() : first.child.once('exit', () => r())));
    await Promise.all(calls);
    expect(killed).toBe(true);
    expect(other).toBe(0);

    // The dead process left reservations open in the log (else this test would prove nothing).
    const probe = new SqliteEventStore(join(dataDir, 'events.sqlite'));
    const before = await new CreditLedger(probe).state(tenantId);
    await probe.close();
    const held = [...before.open.values()].reduce((a, r) => a + r.amount, 0);
    expect(held).toBeGreaterThan(0);
    expect(before.totalUsed).toBe(ok);

    const second = await startServer();
    const r = await fetch(`${second.url}/v1/credits/balance`, { headers: auth });
    const balance = (await r.json()).data;
    const tookMs = performance.now() - second.readyAt;
    console.log(`killed with ${held} credits held by ${before.open.size} calls in flight, ${ok} answered 2xx; after restart: reserved ${balance.reserved_credits}, ${Math.round(tookMs)} ms after listening`);
    expect(r.status).toBe(200);
    expect(balance.reserved_credits).toBe(0);
    expect(balance.total_used).toBe(ok);
    expect(balance.available_credits).toBe(PLANS.pro.monthlyCredits! - ok);
    expect(tookMs).toBeLessThan(1000);
    second.child.kill('SIGTERM');
    await new Promise((res) => second.child.once('exit', res));
  }, 180_000);
});
