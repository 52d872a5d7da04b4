import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const run = promisify(execFile);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

/** Runs the operator CLI as its own process against the running server's DATA_DIR. */
async function cli(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: s.dataDir, LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout.trim());
}

/** Polls until `check` holds; returns the milliseconds it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`condition not met within ${ms} ms`);
}

describe('operator CLI against a running server', () => {
  it('creates tenants and keys, grants credits, sets limits and revokes keys, effective within a second', async () => {
    const { tenant_id } = await cli('tenant', 'create', '--name', 'Acme Fintech', '--plan', 'basic');
    expect(tenant_id).toMatch(/^ten_/);
    const { key, key_id } = await cli('key', 'create', '--tenant', tenant_id, '--permissions', 'read,write', '--test');
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{43,}$/);
    expect(key_id).toMatch(/^key_/);
    await within(1000, async () => (await s.fetch('/v1/credits/balance', { key })).status === 200);

    const grant = await cli('credits', 'grant', '--tenant', tenant_id, '--amount', '250');
    expect(grant).toMatchObject({ tenant_id, granted: 250, available_credits: 4250 });
    await within(1000, async () => (await (await s.fetch('/v1/credits/balance', { key })).json()).data.available_credits === 4250);

    const limits = await cli('tenant', 'limits', '--tenant', tenant_id, '--rpm', 'unlimited', '--concurrency', '7');
    expect(limits).toMatchObject({ requests_per_minute: 'unlimited', concurrent_requests: 7 });
    await within(1000, async () => s.ctx.tenancy.state.tenants.get(tenant_id)?.limits.concurrentRequests === 7);
    // naming one limit keeps the other (it used to return to the plan's value); `plan` returns a named one
    expect(await cli('tenant', 'limits', '--tenant', tenant_id, '--concurrency', '3')).toMatchObject({ requests_per_minute: 'unlimited', concurrent_requests: 3 });
    await within(1000, async () => s.ctx.tenancy.state.tenants.get(tenant_id)?.limits.concurrentRequests === 3);
    expect(s.ctx.tenancy.state.tenants.get(tenant_id)?.limits.requestsPerMinute).toBeNull();
    expect(await cli('tenant', 'limits', '--tenant', tenant_id, '--rpm', 'plan')).toMatchObject({ requests_per_minute: 'plan', concurrent_requests: 3 });

    const revoked = await cli('key', 'revoke', '--key-id', key_id);
    expect(revoked).toMatchObject({ key_id, revoked: true });
    const took = await within(1000, async () => (await s.fetch('/v1/credits/balance', { key })).status === 401);
    expect(took).toBeLessThan(1000);
  }, 180_000); // each CLI call is its own process (2.7 s unloaded on 2 cores; 4-12 s beside the rest of the suite)

  it('refuses bad input with a JSON error and a non-zero exit', async () => {
    const e1 = await cli('tenant', 'create', '--name', 'X', '--plan', 'platinum').catch((e: { code: number; stderr: string }) => e);
    expect(e1.code).not.toBe(0);
    expect(JSON.parse(e1.stderr.trim()).error).toBe('invalid_plan');
    const e2 = await cli('key', 'create', '--tenant', 'ten_nope', '--permissions', 'read').catch((e: { code: number; stderr: string }) => e);
    expect(JSON.parse(e2.stderr.trim()).error).toBe('unknown_tenant');
    const e3 = await cli('key', 'revoke', '--key-id', 'key_nope').catch((e: { code: number; stderr: string }) => e);
    expect(JSON.parse(e3.stderr.trim()).error).toBe('unknown_key');
    const e4 = await cli('credits', 'grant', '--tenant', 'x', '--amount', '-5').catch((e: { code: number; stderr: string }) => e);
    expect(e4.code).toBe(64);
  }, 180_000); // each CLI call is its own process (2.7 s unloaded on 2 cores; 4-12 s beside the rest of the suite)

  it('replays every read model from the log and reports counts', async () => {
    const { tenantId, key } = await s.tenantWithKey('pro');
    await s.fetch('/v1/credits/balance', { key });
    await s.fetch('/v1/api-keys', { key });
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const before = await (await s.ctx.readModels.collection('usage_events')).count();
    const keysBefore = await (await s.ctx.readModels.collection('api_keys')).count();
    const report = await cli('replay');
    expect(report.events).toBeGreaterThan(0);
    expect(report.projections['usage-events'].usage_events).toBe(before);
    expect(report.projections['api-keys'].api_keys).toBe(keysBefore);
    expect(report.projections.tenants.tenants).toBeGreaterThanOrEqual(2);
    const rows = await (await s.ctx.readModels.collection('usage_events')).find({ tenant_id: tenantId });
    expect(rows).toHaveLength(2);
  }, 180_000); // each CLI call is its own process (2.7 s unloaded on 2 cores; 4-12 s beside the rest of the suite)
});
