/**
 * OCR and erasure over real HTTP (issue 28): `/v1/ocr/*` take an optional `subject_id` (the face and
 * fingerprint subject id rules); the answer an `Idempotency-Key` stores for such a call is tagged with the
 * subject, and `POST /v1/privacy/erasures {subject_id}` removes it (receipt line `idempotency_answers`),
 * leaving no copy of the extraction in `idempotency.sqlite` or its WAL. Answers of calls without
 * `subject_id`, or with another subject, stay until `IDEMPOTENCY_TTL_MS` (docs/privacy.md). The
 * `ocr.id.extracted` event keeps nothing of the holder. Documents are rendered by
 * test/helpers/ocr-fixtures.ts (known text); the OCR models run in worker threads.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { SAMPLE_INE, renderIneFront } from '../../helpers/ocr-fixtures.ts';

const TIMEOUT = 600_000;
/** Printed as the street of the subject's INE: text of ours that the extraction carries into its answer. */
const TOKEN = 'QZWMARKERXJ';
const SUBJECT = 'subj-ocr-erase';
/** The User-Agent of the subject's extraction: its usage row names the subject, so the erasure clears it. */
const AGENT = 'ocr-agent-MARKER-7c1f';
let s: TestServer;
let admin: string;
let tenantId: string;
let subjectFront: Buffer;
let otherFront: Buffer;

beforeAll(async () => {
  // Cold workers load the models on their first job; on a busy machine that exceeds the default 60 s job timeout.
  s = await startTestServer({ config: { JOB_TIMEOUT_MS: 200_000 } });
  ({ key: admin, tenantId } = await s.tenantWithKey('enterprise', ['read', 'write', 'admin']));
  subjectFront = await renderIneFront({ ...SAMPLE_INE, street: `AV ${TOKEN} 123` }, { jpeg: 90 });
  otherFront = await renderIneFront(SAMPLE_INE, { jpeg: 90 });
}, TIMEOUT);
afterAll(async () => s?.close());

function form(parts: Record<string, Buffer | string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  return f;
}

/** A POST with an optional Idempotency-Key; a 503 (the OCR back end timed out on a loaded machine: "retry later") is retried. */
async function post(url: string, body: () => FormData | object, idempotencyKey?: string, userAgent?: string) {
  for (let attempt = 1; ; attempt++) {
    const b = body();
    const headers: Record<string, string> = idempotencyKey ? { 'idempotency-key': idempotencyKey } : {};
    if (userAgent) headers['user-agent'] = userAgent;
    if (!(b instanceof FormData)) headers['content-type'] = 'application/json';
    const r = await s.fetch(url, { method: 'POST', key: admin, headers, body: b instanceof FormData ? b : JSON.stringify(b) });
    const out = { status: r.status, headers: r.headers, body: (await r.json()) as any };
    if (out.status !== 503 || attempt === 3) return out;
  }
}

/** Every byte of the idempotency store's files (database, WAL, shared memory). */
function idempotencyBytes(): Buffer {
  return Buffer.concat(readdirSync(s.dataDir).filter((f) => f.startsWith('idempotency.sqlite')).map((f) => readFileSync(path.join(s.dataDir, f))));
}

describe('OCR subject_id: validation and documentation', () => {
  it('a malformed subject_id is 400 invalid_request (flat shape) on every OCR route, before any work is charged', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['/v1/ocr/extract/id', {}],
      ['/v1/ocr/extract/document', { document_type: 'electricity_bill' }],
      ['/v1/ocr/verify/authenticity', {}],
    ];
    for (const [url, fields] of cases) {
      for (const bad of ['', 'a\u0001b', 'x'.repeat(257)]) {
        const r = await post(url, () => form({ ...fields, image: Buffer.from('not read: the field is checked first'), subject_id: bad }));
        expect(r.status, `${url} ${JSON.stringify(bad.slice(0, 8))}`).toBe(400);
        expect(r.body).toMatchObject({ success: false, error: 'invalid_request' });
        expect(r.body.message).toMatch(/subject_id/);
        expect(r.headers.get('x-credit-cost') ?? '0').toBe('0');
      }
    }
    // JSON bodies too.
    const r = await post('/v1/ocr/extract/id', () => ({ image: Buffer.from('x').toString('base64'), subject_id: '' }));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });

  it('the OpenAPI document describes subject_id on the OCR routes and the idempotency_answers receipt line', async () => {
    const spec = (await (await s.fetch('/openapi.json')).json()) as any;
    for (const p of ['/v1/ocr/extract/id', '/v1/ocr/extract/document', '/v1/ocr/verify/authenticity']) {
      const content = spec.paths[p].post.requestBody.content;
      for (const type of ['multipart/form-data', 'application/json']) {
        const field = content[type].schema.properties.subject_id;
        expect(field, `${p} ${type}`).toMatchObject({ type: 'string', minLength: 1, maxLength: 256 });
        expect(field.description).toContain('POST /v1/privacy/erasures {subject_id}');
        expect(field.description).toContain('IDEMPOTENCY_TTL_MS');
      }
    }
    expect(JSON.stringify(spec.paths['/v1/privacy/erasures'].post)).toContain('idempotency_answers');
  });
});

describe('OCR subject_id: an erasure removes the stored Idempotency-Key answers of the subject', () => {
  it('extract/id answers tagged with the subject are erased (receipt counts them, no copy in the files); others stay; the event keeps nothing of the holder', async () => {
    // The subject's extraction (multipart, subject_id), its replay.
    const first = await post('/v1/ocr/extract/id', () => form({ front: subjectFront, subject_id: SUBJECT }), 'ocr-subject-1', AGENT);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.fields.curp).toBe(SAMPLE_INE.curp);
    expect(first.body.fields.address).toContain(TOKEN);
    const replay = await post('/v1/ocr/extract/id', () => form({ front: subjectFront, subject_id: SUBJECT }), 'ocr-subject-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // The same document without subject_id, and another subject's (JSON body): not the subject's.
    const untagged = await post('/v1/ocr/extract/id', () => form({ front: otherFront }), 'ocr-untagged');
    expect(untagged.status, JSON.stringify(untagged.body)).toBe(200);
    const otherSubject = await post('/v1/ocr/extract/id', () => ({ front: otherFront.toString('base64'), subject_id: `${SUBJECT}-2` }), 'ocr-other-subject');
    expect(otherSubject.status, JSON.stringify(otherSubject.body)).toBe(200);
    expect(idempotencyBytes().includes(TOKEN), 'the stored answer holds the extraction').toBe(true);
    // The extraction's usage row names the subject (with the caller's user agent); the untagged call's does not.
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const usage = await s.ctx.readModels.collection<{ subject_id?: string | null; user_agent: string | null; endpoint: string }>('usage_events');
    expect((await usage.find({ tenant_id: tenantId, subject_id: SUBJECT })).map((r) => [r.endpoint, r.user_agent])).toEqual([['/v1/ocr/extract/id', AGENT]]);

    // The log's extraction event: document type, version and checks only.
    const { events } = await s.ctx.events.readStream(`webhook-events-${tenantId}`);
    const extracted = events.filter((e) => e.type === 'ocr.id.extracted');
    expect(extracted).toHaveLength(3);
    for (const e of extracted) expect(Object.keys(e.data as object).sort()).toEqual(['document_type', 'document_version', 'has_back', 'validation']);
    expect(JSON.stringify(events)).not.toContain(SAMPLE_INE.curp.slice(0, 4));

    const erased = await s.fetch('/v1/privacy/erasures', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subject_id: SUBJECT }) });
    const receipt = (await erased.json()) as any;
    expect(erased.status, JSON.stringify(receipt)).toBe(202);
    expect(receipt.data.erased.find((i: { kind: string }) => i.kind === 'idempotency_answers')).toMatchObject({ count: 1, stores: ['idempotency_store'] });
    expect(receipt.data.erased.find((i: { kind: string }) => i.kind === 'usage_calls')).toMatchObject({ count: 1 });
    expect((await usage.find({ tenant_id: tenantId, subject_id: SUBJECT })).map((r) => r.user_agent)).toEqual([null]);
    expect(JSON.stringify(receipt)).not.toContain(TOKEN);
    // No copy left in the database file, its free pages or its WAL.
    expect(idempotencyBytes().includes(TOKEN)).toBe(false);

    // The other answers stay until IDEMPOTENCY_TTL_MS: replayed.
    expect((await post('/v1/ocr/extract/id', () => form({ front: otherFront }), 'ocr-untagged')).headers.get('idempotent-replayed')).toBe('true');
    expect((await post('/v1/ocr/extract/id', () => ({ front: otherFront.toString('base64'), subject_id: `${SUBJECT}-2` }), 'ocr-other-subject')).headers.get('idempotent-replayed')).toBe('true');
    // The subject's key runs its call again (charged, not replayed).
    const again = await post('/v1/ocr/extract/id', () => form({ front: subjectFront, subject_id: SUBJECT }), 'ocr-subject-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('x-credit-cost')).toBe('3');

    // A second erasure finds that new answer (tagged again) and only it.
    const second = (await (await s.fetch('/v1/privacy/erasures', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subject_id: SUBJECT }) })).json()) as any;
    expect(second.data.erased.find((i: { kind: string }) => i.kind === 'idempotency_answers').count).toBe(1);
  }, TIMEOUT);
});
