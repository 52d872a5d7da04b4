import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { TenancyView } from '../../apps/platform/tenancy-view.ts';
import { Authenticator } from '../../apps/api/auth.ts';
import { ApiError } from '../../apps/api/errors.ts';
import { createApiKey, createTenant } from '../../domain/tenancy/operations.ts';
import { formatApiKey } from '../../domain/tenancy/api-key.ts';
import { randomBytes } from 'node:crypto';

/**
 * Issue 18 item 3: a key appended by another process (here a second connection to the same SQLite file)
 * is accepted on the very next call, although the server's subscription would only poll in a minute and
 * the file watch is off: an unknown key triggers one catch-up before the 401. Junk keys share
 * rate-bounded catch-ups, so they cannot make the server read the log once per request.
 */
const dir = mkdtempSync(join(tmpdir(), 'sello-unknown-key-'));
const file = join(dir, 'events.sqlite');
const server = new SqliteEventStore(file, 60_000, { watch: false });
const cli = new SqliteEventStore(file, 60_000, { watch: false });
const view = new TenancyView(server, 10);
const auth = new Authenticator(view, { JWT_SECRET: undefined, JWT_PUBLIC_KEY: undefined });
const request = (key: string) => ({ headers: { authorization: `Bearer ${key}` } }) as unknown as FastifyRequest;
const status = (p: Promise<unknown>) => p.then(() => 200, (e: unknown) => (e instanceof ApiError ? e.status : 500));

beforeAll(async () => {
  await view.start();
});
afterAll(async () => {
  await view.stop();
  await server.close();
  await cli.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an API key created by another process', () => {
  it('is accepted on the first call, without waiting for the poll', async () => {
    const { tenantId } = await createTenant({ store: cli, name: 'Acme', plan: 'pro' });
    const { key } = await createApiKey({ store: cli, tenantId, permissions: ['read'], test: false });
    expect(view.state.keysByHash.size).toBe(0); // the subscription has not seen it
    const t0 = performance.now();
    const ctx = await auth.authenticate(request(key), { permission: 'read' });
    expect(ctx.tenantId).toBe(tenantId);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('junk keys share rate-bounded catch-ups and a real key created meanwhile still works', async () => {
    const before = view.unknownCredentialCatchUps;
    const t0 = performance.now();
    const junk = Array.from({ length: 2000 }, () => status(auth.authenticate(request(formatApiKey(randomBytes(32), false)), { permission: 'read' })));
    const { tenantId } = await createTenant({ store: cli, name: 'Late', plan: 'basic' });
    const { key } = await createApiKey({ store: cli, tenantId, permissions: ['read'], test: true });
    const real = await status(auth.authenticate(request(key), { permission: 'read' }));
    const statuses = await Promise.all(junk);
    const elapsed = performance.now() - t0;
    expect(real).toBe(200);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const catchUps = view.unknownCredentialCatchUps - before;
    // At most one catch-up per 10 ms (plus the one already due), however many junk keys arrived.
    expect(catchUps).toBeGreaterThanOrEqual(1);
    expect(catchUps).toBeLessThanOrEqual(Math.ceil(elapsed / 10) + 2);
    expect(catchUps).toBeLessThan(50);
  });

  it('a malformed credential never triggers a catch-up', async () => {
    const before = view.unknownCredentialCatchUps;
    expect(await status(auth.authenticate(request('not-a-key'), { permission: 'read' }))).toBe(401);
    expect(view.unknownCredentialCatchUps).toBe(before);
  });
});
