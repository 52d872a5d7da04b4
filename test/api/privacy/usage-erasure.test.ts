/**
 * An erasure by `subject_id` reaches the usage data of the calls that named the subject (issue 28,
 * docs/privacy.md "Usage events"), over real HTTP: the enrolment and the verification of a face subject
 * are recorded with the subject on their usage rows; `POST /v1/privacy/erasures` clears those rows' IP
 * address and user agent (a call that named no subject keeps its own), deletes the usage export file made
 * with `include_details` that covers them (the export reads `expired`; one without details stays), the
 * receipt counts both, and a replay of the log rebuilds the rows without them. Faces: the face-api demo
 * image shipped with the package (no shared data needed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { faceCrop } from '../face/fixtures.ts';
import { eventually } from '../../contract/workflows.contract.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import { usageEventsProjection, type UsageRecord } from '../../../projections/usage-events/usage-events.ts';
import { SqliteReadModelStore } from '../../../infra/read-models/sqlite/sqlite-read-models.ts';

const UA_SUBJECT = `Agent-subject-${Math.random().toString(36).slice(2, 8)}`;
const UA_OTHER = `Agent-other-${Math.random().toString(36).slice(2, 8)}`;
let s: TestServer;
let tenantId: string;
let key: string;
const dirs: string[] = [];

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  tenantId = await s.createTenant('enterprise');
  key = (await s.createKey(tenantId, ['read', 'write', 'admin'])).key;
}, 120_000);
afterAll(async () => {
  await s?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function call(method: string, url: string, ua: string, body?: FormData | object): Promise<{ status: number; body: any }> {
  for (let attempt = 1; ; attempt++) {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'user-agent': ua };
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const r = await fetch(`${s.url}${url}`, { method, headers, body: payload });
    const parsed = await r.json().catch(() => null);
    if (r.status !== 503 || attempt === 5) return { status: r.status, body: parsed };
  }
}

const faceForm = async (fields: Record<string, string>) => {
  const fd = new FormData();
  fd.append('image', new Blob([new Uint8Array(await faceCrop('a'))], { type: 'image/jpeg' }), 'face.jpg');
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
};

const rowsOf = async (store = s.ctx.readModels): Promise<UsageRecord[]> =>
  (await (await store.collection<UsageRecord>('usage_events')).find({ tenant_id: tenantId })) as UsageRecord[];

describe('erasure of a subject and its usage data', () => {
  it('clears the usage rows of the calls that named it, deletes the detailed export covering them, and replays without them', async () => {
    const enrol = await call('POST', '/v1/face-matching/enroll', UA_SUBJECT, await faceForm({ subject_id: 'subj-usage', liveness_score: '0.9' }));
    expect(enrol.status, JSON.stringify(enrol.body)).toBe(200);
    const verify = await call('POST', '/v1/face-matching/verify/subj-usage', UA_SUBJECT, await faceForm({}));
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    expect((await call('GET', '/v1/credits/balance', UA_OTHER)).status).toBe(200);
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();

    // The subject is on the rows of the calls that named it, with their address and user agent.
    const before = await rowsOf();
    const named = before.filter((r) => r.subject_id === 'subj-usage');
    expect(named.map((r) => r.endpoint).sort()).toEqual(['/v1/face-matching/enroll', '/v1/face-matching/verify/:subjectId']);
    for (const r of named) expect(r).toMatchObject({ ip_address: '127.0.0.1', user_agent: UA_SUBJECT });

    // Two exports of today: with details (addresses and user agents) and without.
    const today = new Date(s.ctx.clock.now()).toISOString().slice(0, 10);
    const exportOf = async (include_details: boolean) => {
      const r = await call('POST', '/v1/usage/export', UA_OTHER, { format: 'csv', start_date: today, end_date: today, include_details });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const id = r.body.export_id as string;
      await eventually(async () => ((await call('GET', `/v1/usage/export/${id}`, UA_OTHER)).body.status === 'completed' ? true : null), 60_000, `export ${id}`);
      return id;
    };
    const detailed = await exportOf(true);
    const plain = await exportOf(false);
    const blobs = await s.ctx.blobs.list(`${tenantId}/usage-exports/`);
    expect(blobs.length).toBe(2);

    const erased = await call('POST', '/v1/privacy/erasures', UA_OTHER, { subject_id: 'subj-usage' });
    expect(erased.status, JSON.stringify(erased.body)).toBe(202);
    const counts = Object.fromEntries(erased.body.data.erased.map((i: { kind: string; count: number }) => [i.kind, i.count]));
    expect(counts).toMatchObject({ face_templates: 1, usage_calls: 2, usage_exports: 1 });

    // The rows of the calls that named the subject lose their address and user agent; the other call keeps its own.
    await s.ctx.projections.catchUp();
    const after = await rowsOf();
    for (const r of after.filter((x) => x.subject_id === 'subj-usage')) expect(r).toMatchObject({ ip_address: '', user_agent: null });
    expect(after.some((r) => r.user_agent === UA_OTHER && r.ip_address === '127.0.0.1')).toBe(true);
    expect(after.some((r) => r.user_agent === UA_SUBJECT)).toBe(false);

    // The detailed export is gone (file deleted, reads expired); the one without details stays.
    expect((await call('GET', `/v1/usage/export/${detailed}`, UA_OTHER)).body.status).toBe('expired');
    expect((await call('GET', `/v1/usage/export/${plain}`, UA_OTHER)).body.status).toBe('completed');
    expect((await s.ctx.blobs.list(`${tenantId}/usage-exports/`)).length).toBe(1);

    // A replay of the log (what `npm run cli -- replay` runs) into a fresh store rebuilds the rows without them.
    const dir = mkdtempSync(path.join(tmpdir(), 'sello-usage-erasure-'));
    dirs.push(dir);
    const fresh = new SqliteReadModelStore(path.join(dir, 'read-models.sqlite'));
    try {
      await ProjectionRunner.replay(s.ctx.events, [usageEventsProjection], { store: fresh, vectorIndex: s.ctx.vectorIndex });
      const replayed = await rowsOf(fresh);
      expect(replayed.length).toBeGreaterThanOrEqual(after.length - 2); // the erasure's own calls may still be in flight
      for (const r of replayed.filter((x) => x.subject_id === 'subj-usage')) expect(r).toMatchObject({ ip_address: '', user_agent: null });
      expect(replayed.filter((x) => x.subject_id === 'subj-usage')).toHaveLength(2);
      expect(replayed.some((r) => r.user_agent === UA_OTHER)).toBe(true);
    } finally {
      await fresh.close();
    }
  }, 300_000);
});
