import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import type { ApiApp } from '../../apps/api/app.ts';
import { ApiError } from '../../apps/api/errors.ts';

/**
 * Routes that only tests register (through `startTestServer({ extend })`), to exercise the edge:
 * a priced route, a priced route that fails, a slow one, a registry-shaped one, one taking a JWT, a slow
 * streamed download.
 */
export function registerTestRoutes(app: ApiApp): void {
  app.post('/v1/test/priced', { config: { billing: { cost: 1 } } }, async () => ({ success: true, data: { ok: true } }));
  app.post('/v1/test/fails', { config: { billing: { cost: 1 } } }, async () => {
    throw new ApiError(400, 'bad_thing', 'This route always fails');
  });
  app.post('/v1/test/crashes', { config: { billing: { cost: 1 } } }, async () => {
    throw new Error('secret internal detail');
  });
  app.post('/v1/test/slow', { config: { billing: { cost: 1 } } }, async () => {
    await sleep(400);
    return { success: true };
  });
  app.post('/v1/test/heavy', { config: { rateClass: 'heavy' } }, async () => ({ success: true }));
  app.post('/v1/test/registry', { config: { billing: { cost: 5 }, errorShape: 'registry' } }, async () => ({ success: true, status: 'OK' }));
  app.get('/v1/test/flat', { config: { errorShape: 'flat', auth: { permission: 'read', jwt: true } } }, async (request) => ({
    success: true,
    tenant: request.auth!.tenantId,
    via: request.auth!.via,
  }));
  app.post('/v1/test/write', { config: { auth: { permission: 'write' } } }, async () => ({ success: true }));
  // A free download streamed slowly: 200 chunks of 64 KiB, one every 5 ms (about 1 s, 12.5 MiB).
  app.get('/v1/test/stream', async (_request, reply) => {
    let n = 0;
    const body = new Readable({
      read() {
        setTimeout(() => this.push(++n > 200 ? null : Buffer.alloc(64 * 1024, 120)), 5);
      },
    });
    return reply.type('text/plain').send(body);
  });
}
