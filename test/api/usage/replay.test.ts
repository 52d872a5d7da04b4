import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import { projectionsOf } from '../../../apps/capabilities/index.ts';
import { usageAnalyticsProjection } from '../../../projections/usage-analytics/projection.ts';
import { usageExportsProjection } from '../../../projections/usage-exports/index.ts';
import { usageEventsProjection } from '../../../projections/usage-events/usage-events.ts';
import { readModelVariants, postgresReachable } from './harness.ts';
import { listAlerts, usageCredits, usageRealtime, usageStats, usageSummary } from '../../../projections/usage-analytics/queries.ts';

const variants = await readModelVariants('usage replay');
const pgOk = await postgresReachable('usage replay');

for (const v of variants) {
  const d = v.name === 'postgres' && !pgOk ? describe.skip : describe;
  d(`usage read models are identical after a replay (${v.name})`, () => {
    let s: TestServer;
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    beforeAll(async () => {
      const rm = v.readModels();
      s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 }, overrides: { clock, ...(rm ? { readModels: rm } : {}) }, extend: (app) => registerTestRoutes(app) });
    });
    afterAll(async () => {
      await s?.close();
      await v.cleanup();
    });

    it('replays the log (what `npm run cli -- replay` runs) into the same documents and the same /summary, /stats, /realtime, /credits and alert answers', async () => {
      const t = await s.tenantWithKey('basic');
      const json = (b: unknown) => ({ method: 'POST', key: t.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      expect((await s.fetch('/v1/usage/alerts', json({ name: 'low', condition: { metric: 'credits_remaining', operator: 'lt', value: 3999 }, notification: { email: 'a@example.com' } }))).status).toBe(201);
      for (let i = 0; i < 30; i++) {
        await s.fetch(i % 4 ? '/v1/test/priced' : '/v1/test/fails', { method: 'POST', key: t.key });
        clock.advance(37_000);
      }
      await s.grant(t.tenantId, 50);
      await s.ctx.usage.flush();
      await s.ctx.projections.catchUp();
      expect((await s.fetch('/v1/usage/export', json({ start_date: '2026-11-20', end_date: '2026-11-20' }))).status).toBe(202);
      await new Promise((r) => setTimeout(r, 500));
      await s.ctx.usage.flush();
      await s.ctx.projections.catchUp();

      const now = clock.now();
      const answers = async () => [
        await usageSummary(s.ctx.readModels, t.tenantId, 'basic', now),
        await usageStats(s.ctx.readModels, t.tenantId, { from: Date.UTC(2026, 10, 20), to: now, endpoint: null, limit: 1000, page: 1 }),
        await usageStats(s.ctx.readModels, t.tenantId, { from: Date.UTC(2026, 10, 20, 12, 3, 10, 5), to: now - 61_000, endpoint: 'priced', limit: 7, page: 2 }),
        await usageRealtime(s.ctx.readModels, t.tenantId, '24h', '15m', now),
        await usageCredits(s.ctx.readModels, t.tenantId, 'basic', now),
        await listAlerts(s.ctx.readModels, t.tenantId),
      ];
      const projections = [usageEventsProjection, usageAnalyticsProjection, usageExportsProjection];
      const snapshot = async () => {
        const out: Record<string, unknown[]> = {};
        for (const p of projections) {
          for (const c of p.collections) {
            const docs = await (await s.ctx.readModels.collection(c)).find(undefined);
            out[c] = c === 'usage_alert_outbox' ? docs.map((d) => ({ ...d, status: null })) : docs;
          }
        }
        return out;
      };
      // Stop the live projections first (the CLI's replay runs with the server stopped).
      await s.ctx.projections.stop();
      const before = await snapshot();
      expect((before.usage_rollups ?? []).length).toBeGreaterThan(0);
      expect((before.usage_alerts ?? []).length).toBe(1);
      expect((before.usage_alerts![0] as { triggered_count: number }).triggered_count).toBe(1);
      expect((before.usage_alert_outbox ?? []).length).toBe(1);
      const answered = await answers();
      const report = await ProjectionRunner.replay(s.ctx.events, projectionsOf(s.ctx.capabilities), { store: s.ctx.readModels, vectorIndex: s.ctx.vectorIndex });
      expect(report.events).toBeGreaterThan(30);
      expect(await snapshot()).toEqual(before);
      expect(await answers()).toEqual(answered);
      await s.ctx.projections.start();
    });
  });
}

describe('`npm run cli -- replay` (a separate process) rebuilds the same usage documents (SQLite)', () => {
  it('replays the log of a stopped server into identical documents', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { SqliteReadModelStore } = await import('../../../infra/read-models/sqlite/sqlite-read-models.ts');
    const dir = mkdtempSync(join(tmpdir(), 'sello-usage-cli-replay-'));
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    const s = await startTestServer({ config: { DATA_DIR: dir }, overrides: { clock }, extend: (app) => registerTestRoutes(app) });
    const t = await s.tenantWithKey('basic');
    await s.fetch('/v1/usage/alerts', { method: 'POST', key: t.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'low', condition: { metric: 'credits_remaining', operator: 'lt', value: 3995 }, notification: { email: 'a@example.com' } }) });
    for (let i = 0; i < 12; i++) {
      await s.fetch(i % 3 ? '/v1/test/priced' : '/v1/test/fails', { method: 'POST', key: t.key });
      clock.advance(29_000);
    }
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    await s.close();
    const collections = [usageEventsProjection, usageAnalyticsProjection, usageExportsProjection].flatMap((p) => p.collections);
    const snapshot = async () => {
      const rm = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
      const out: Record<string, unknown[]> = {};
      for (const c of collections) {
        const docs = await (await rm.collection(c)).find(undefined);
        out[c] = c === 'usage_alert_outbox' ? docs.map((d) => ({ ...d, status: null })) : docs;
      }
      await rm.close();
      return out;
    };
    const before = await snapshot();
    expect((before.usage_alerts![0] as { triggered_count: number }).triggered_count).toBe(1);
    const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', 'replay'], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' },
    });
    const report = JSON.parse(stdout.trim());
    expect(report.projections['usage-analytics'].usage_alerts).toBe(1);
    expect(await snapshot()).toEqual(before);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
