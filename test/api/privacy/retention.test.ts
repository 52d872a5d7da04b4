/**
 * Retention periods (`/v1/privacy/retention`, issue 28 item 5) over real HTTP, with the platform's
 * injected clock moved past the periods: the daily `privacy-retention` workflow truncates the IP
 * addresses of older usage rows (newer rows keep theirs), erases face subjects whose latest enrolment is
 * older than the tenant's period (search no longer finds them, the listing shows them deleted, a younger
 * subject stays), and deletes the working files of an ended signing document. Faces come from
 * `../shared/data` (that case is skipped with a printed reason where absent).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCalls, startTestServer, type TestServer } from '../../helpers/server.ts';
import { imageCalls, jsonRequests, advanceAndSweep as advanceAndSweepTo } from '../../helpers/privacy.ts';
import { ManualClock } from '../../contract/workflows.contract.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';
import { temporalAddress, terminateTaskQueue } from '../../helpers/temporal.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const facesDir = path.resolve(repoRoot, '../shared/data/faces/face-api-js/images');
const haveFaces = existsSync(facesDir);
if (!haveFaces) console.warn(`retention tests with faces skipped: ${facesDir} is absent`);
const face = (who: string, n: number) => readFileSync(path.join(facesDir, who, `${who}${n}.png`));
const fpDir = path.resolve(repoRoot, '../shared/data/fingerprint/fvc2002/DB1_B');
const haveFingerprints = existsSync(fpDir);
if (!haveFingerprints) console.warn(`retention test of a deleted fingerprint skipped: ${fpDir} is absent`);
const bin = jsonCalls(() => s);

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const TIMEOUT = 600_000;
let s: TestServer;
let clock: ManualClock;
let tenant: string;
let admin: string;
let writer: string;
const img = imageCalls(() => s);

const json = jsonRequests(() => s);

const advanceAndSweep = (ms: number) => advanceAndSweepTo(s, clock, ms);

// Embedded workflow engine, and Temporal (the shared development server, a task queue of this run's own;
// skipped with a printed reason where it is not running).
const temporal = await temporalAddress('privacy retention sweep on Temporal');
const runs: Array<{ name: string; temporal: string | null; full: boolean }> = [
  { name: 'embedded workflows', temporal: null, full: true },
  ...(temporal ? [{ name: 'workflows on Temporal', temporal, full: false }] : []),
];

for (const run of runs) describe(`privacy retention (${run.name})`, () => {
const taskQueue = `privacy-retention-${process.pid}-${Date.now()}`;
beforeAll(async () => {
  clock = new ManualClock(NOW);
  const workflows = run.temporal ? { WORKFLOWS: 'temporal', TEMPORAL_ADDRESS: run.temporal, TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_CLOCK_RECHECK_MS: 100 } : {};
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, ...workflows }, overrides: { clock } });
  tenant = await s.createTenant('enterprise');
  admin = (await s.createKey(tenant, ['read', 'write', 'admin'])).key;
  writer = (await s.createKey(tenant, ['read', 'write'])).key;
}, TIMEOUT);
afterAll(async () => {
  await s?.close();
  if (run.temporal) await terminateTaskQueue(run.temporal, taskQueue).catch(() => undefined);
});

describe('settings', () => {
  it('shows the plan defaults, lets an admin change them, refuses bad input, and is in OpenAPI', async () => {
    const got = await json('GET', '/v1/privacy/retention', writer);
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      plan: 'enterprise',
      settings: { biometric_templates_days: null, documents_days: 365, signed_documents_days: 3650, usage_ip_days: 90 },
      overridden: [],
      last_sweep: null,
    });
    const free = await s.tenantWithKey('free');
    expect((await json('GET', '/v1/privacy/retention', free.key)).body.data.defaults).toEqual({ biometric_templates_days: 365, documents_days: 30, signed_documents_days: 3650, usage_ip_days: 90 });

    expect((await json('PUT', '/v1/privacy/retention', writer, { usage_ip_days: 30 })).status).toBe(403);
    for (const bad of [{}, { usage_ip_days: 0 }, { usage_ip_days: 1.5 }, { usage_ip_days: 36_501 }, { usage_ip_days: 'never' }, { face_days: 3 }]) {
      const r = await json('PUT', '/v1/privacy/retention', admin, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(['invalid_request', 'validation_error']).toContain(r.body.error.code);
    }
    const set = await json('PUT', '/v1/privacy/retention', admin, { documents_days: 10, signed_documents_days: null });
    expect(set.status).toBe(200);
    expect(set.body.data.settings).toMatchObject({ documents_days: 10, signed_documents_days: null, usage_ip_days: 90 });
    expect(set.body.data.overridden.sort()).toEqual(['documents_days', 'signed_documents_days']);
    const back = await json('PUT', '/v1/privacy/retention', admin, { signed_documents_days: 'plan' });
    expect(back.body.data.settings.signed_documents_days).toBe(3650);
    expect(back.body.data.overridden).toEqual(['documents_days']);

    const spec = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; description?: string }>> };
    expect(Object.keys(spec.paths['/v1/privacy/retention']!.put!.responses)).toEqual(expect.arrayContaining(['200', '400']));
    expect(spec.paths['/v1/privacy/retention']!.get!.description).toContain('usage IPs 90');
    expect(Object.keys(spec.paths['/v1/privacy/offboarding']!.post!.responses)).toEqual(expect.arrayContaining(['202', '400']));
  });
});

describe('the daily sweep', () => {
  it('truncates the IP addresses of usage rows older than 90 days and keeps the newer ones', async () => {
    const t0 = clock.now();
    for (let i = 0; i < 3; i++) expect((await json('GET', '/v1/privacy/retention', writer)).status).toBe(200);
    // A call without a key: a usage row without a tenant (sealed under the anonymous key of the day).
    expect((await fetch(`${s.url}/v1/privacy/retention`, { headers: { 'user-agent': 'anonymous-agent' } })).status).toBe(401);
    // Exports of the first day, with details (full addresses) and without.
    const exportOf = async (include_details: boolean) => {
      const first = new Date(t0).toISOString().slice(0, 10);
      const r = await json('POST', '/v1/usage/export', admin, { format: 'csv', start_date: first, end_date: first, include_details });
      expect(r.status, r.text).toBe(202);
      await waitFor(async () => (await json('GET', `/v1/usage/export/${r.body.export_id}`, admin)).body.status === 'completed', 60_000, 'export');
      return r.body.export_id as string;
    };
    const detailed = await exportOf(true);
    const plain = await exportOf(false);
    await advanceAndSweep(60 * DAY);
    for (let i = 0; i < 2; i++) expect((await json('GET', '/v1/privacy/retention', writer)).status).toBe(200);
    await advanceAndSweep(31 * DAY); // the first calls are 91 days old, the later ones 31

    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const stats = async (ms: number) => (await json('GET', `/v1/usage/stats?start_date=${day(ms)}&end_date=${day(ms)}&endpoint=/v1/privacy/retention&limit=100`, admin)).body;
    const old = await stats(t0);
    expect(old.data.length).toBeGreaterThanOrEqual(3);
    for (const r of old.data) expect(r.ip_address).toBe('127.0.0.0/24');
    const recent = await stats(t0 + 60 * DAY);
    expect(recent.data.length).toBeGreaterThanOrEqual(2);
    for (const r of recent.data) expect(r.ip_address).toBe('127.0.0.1');
    const view = (await json('GET', '/v1/privacy/retention', admin)).body.data;
    expect(view.usage_ips_truncated_before).toBe(new Date(clock.now() - 90 * DAY).toISOString());
    expect(view.last_sweep.items).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'usage_ip_rows' }), { kind: 'usage_ip_days', count: 1 }, { kind: 'usage_exports', count: 1 }]));
    // The export file with the first day's full addresses is deleted; the one without details stays.
    expect((await json('GET', `/v1/usage/export/${detailed}`, admin)).body.status).toBe('expired');
    expect((await json('GET', `/v1/usage/export/${plain}`, admin)).body.status).toBe('completed');
    // The log's copies: the first day's usage events read erased (its usage data key destroyed: addresses
    // '' and user agents null on replay), the later day's still open.
    const usage = (await s.ctx.events.readStream(`usage-${tenant}`)).events.filter((e) => e.type === 'ApiCallsRecorded');
    const ofDay = (ms: number) => usage.filter((e) => day((e.data as { created_at: number[] }).created_at[0]!) === day(ms));
    expect(ofDay(t0).length).toBeGreaterThan(0);
    for (const e of ofDay(t0)) {
      expect(e.data).toMatchObject({ personal_strings: [] });
      expect(e.metadata.erased_at).toEqual(expect.any(String));
    }
    // Calls without a tenant: their day's key too (the sweep's pass over anonymous usage keys).
    const anonymous = (await s.ctx.events.readStream('usage-anonymous')).events.filter((e) => e.type === 'ApiCallsRecorded' && day((e.data as { created_at: number[] }).created_at[0]!) === day(t0));
    expect(anonymous.length).toBeGreaterThan(0);
    for (const e of anonymous) expect(e.data).toMatchObject({ personal_strings: [] });
    expect(ofDay(t0 + 60 * DAY).length).toBeGreaterThan(0);
    for (const e of ofDay(t0 + 60 * DAY)) expect((e.data as { personal_strings: string[] }).personal_strings).toContain('127.0.0.1');
  }, TIMEOUT);

  it('deletes the uploads and page images of a cancelled signing document once its period is over', async () => {
    const pdf = await makePdf(2);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', 'Retention contract');
    form.set('signers', JSON.stringify([{ name: 'Ana', email: 'ana@example.com' }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', key: admin, body: form });
    const doc = (await created.json()) as any;
    expect(created.status, JSON.stringify(doc)).toBe(201);
    const id = doc.data.document_id as string;
    const prefix = `signing/${tenant}/${id}/`;
    expect((await s.ctx.blobs.list(prefix)).length).toBeGreaterThan(0);
    expect((await s.fetch(`/v1/signing/documents/${id}/cancel`, { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'no longer needed' }) })).status).toBe(200);

    await advanceAndSweep(5 * DAY); // within the tenant's 10 days
    expect((await s.ctx.blobs.list(prefix)).length).toBeGreaterThan(0);
    await advanceAndSweep(6 * DAY);
    expect(await s.ctx.blobs.list(prefix)).toEqual([]);
    const view = (await json('GET', '/v1/privacy/retention', admin)).body.data;
    expect(view.last_sweep.items).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'document_files' })]));
  }, TIMEOUT);

  it.skipIf(!run.full)('keeps a finalized document\'s sealed PDF after documents_days and deletes the whole document after signed_documents_days', async () => {
    expect((await json('PUT', '/v1/privacy/retention', admin, { documents_days: 10, signed_documents_days: 20 })).status).toBe(200);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', 'Finalized contract');
    form.set('expiry_date', '2099-12-31');
    form.set('signers', JSON.stringify([{ name: 'Eva', email: 'eva-retention@example.com' }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', key: admin, body: form });
    const id = ((await created.json()) as any).data.document_id as string;
    expect(created.status).toBe(201);
    expect((await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({}) })).status).toBe(200);
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('eva-retention@example.com')), 30_000, 'invitation');
    const link = linkOf(mail);
    expect((await fetch(s.url + link)).status).toBe(200);
    const t = new URL(s.url + link).searchParams.get('t')!;
    const signed = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Eva' }).toString() });
    expect(signed.status).toBe(200);
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key: admin });
    expect(fin.status, await fin.clone().text()).toBe(200);
    const prefix = `signing/${tenant}/${id}/`;
    const names = async () => (await s.ctx.blobs.list(prefix)).map((k) => k.slice(prefix.length)).sort();
    expect((await names()).some((n) => n === 'original.pdf')).toBe(true);

    await advanceAndSweep(11 * DAY); // past documents_days: the working files go, the sealed PDF stays
    const left = await names();
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((n) => n.startsWith('final-'))).toBe(true);
    expect((await s.fetch(`/v1/signing/documents/${id}/download`, { key: admin })).status).toBe(200);

    await advanceAndSweep(10 * DAY); // past signed_documents_days: the whole document
    expect(await names()).toEqual([]);
    expect((await s.fetch(`/v1/signing/documents/${id}`, { key: admin })).status).toBe(404);
    const view = (await json('GET', '/v1/privacy/retention', admin)).body.data;
    expect(view.last_sweep.items).toEqual(expect.arrayContaining([{ kind: 'signed_documents', count: 1 }]));
  }, TIMEOUT);

  it.skipIf(!haveFaces || !run.full)('erases a face subject whose latest enrolment is older than the period; a younger one stays', async () => {
    expect((await json('PUT', '/v1/privacy/retention', admin, { biometric_templates_days: 30 })).status).toBe(200);
    const old = await img.post(admin, '/v1/face-matching/enroll', { image: face('sheldon', 1), subject_id: 'subj-old', liveness_score: '0.9' });
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    // A fingerprint subject whose template was deleted: its sealed template stays in the log until erased.
    let fpTemplate: string | null = null;
    if (haveFingerprints) {
      const fp = await bin.post(admin, '/v1/fingerprint-matching/enroll', { template: readFileSync(path.join(fpDir, '101_1.iso')), subject_id: 'subj-fp-deleted' });
      expect(fp.status, JSON.stringify(fp.body)).toBe(200);
      fpTemplate = fp.body.templateId;
      expect((await s.fetch(`/v1/fingerprint-matching/templates/${fpTemplate}`, { method: 'DELETE', key: admin })).status).toBe(200);
    }
    await advanceAndSweep(20 * DAY);
    const young = await img.post(admin, '/v1/face-matching/enroll', { image: face('penny', 1), subject_id: 'subj-young', liveness_score: '0.9' });
    expect(young.status).toBe(200);
    const before = await img.post(admin, '/v1/face-matching/search', { image: face('sheldon', 2), threshold: '0' });
    expect(before.body.matches.map((m: { subject_id: string }) => m.subject_id)).toContain('subj-old');

    await advanceAndSweep(15 * DAY); // subj-old: 35 days, subj-young: 15
    const after = await img.post(admin, '/v1/face-matching/search', { image: face('sheldon', 2), threshold: '0' });
    expect(after.body.matches.map((m: { subject_id: string }) => m.subject_id)).not.toContain('subj-old');
    const listed = await img.get(admin, '/v1/face-matching/embeddings?active_only=false&subject_id=subj-old');
    expect(listed.body.embeddings.length).toBe(1);
    expect(listed.body.embeddings[0].is_active).toBe(false);
    const keep = await img.post(admin, '/v1/face-matching/search', { image: face('penny', 2), threshold: '0' });
    expect(keep.body.matches[0].subject_id).toBe('subj-young');
    const enrolled = (await s.ctx.events.readStream(`face-embedding-${old.body.embeddingId}`)).events[0]!;
    expect(enrolled.data).toMatchObject({ template_f32le_b64: '', subject_id: 'subj-old' });
    if (fpTemplate) {
      const fpEnrolled = (await s.ctx.events.readStream(`fingerprint-template-${fpTemplate}`)).events[0]!;
      expect(fpEnrolled.data).toMatchObject({ minutiae_b64: '', subject_id: 'subj-fp-deleted' });
    }
    const view = (await json('GET', '/v1/privacy/retention', admin)).body.data;
    expect(view.last_sweep.items).toEqual(expect.arrayContaining([{ kind: 'biometric_subjects', count: fpTemplate ? 2 : 1 }]));
    // The next day's sweep does not erase them again.
    await advanceAndSweep(DAY);
    const next = (await json('GET', '/v1/privacy/retention', admin)).body.data.last_sweep;
    if (next.swept_at !== view.last_sweep.swept_at) expect(next.items.map((i: { kind: string }) => i.kind)).not.toContain('biometric_subjects');
  }, TIMEOUT);
});
});
