/**
 * Issue 28, "How it is checked": after `POST /v1/privacy/erasures`, a scan of every byte the service wrote
 * finds neither the subject's marker strings nor its template bytes. Embedded profile (every file under
 * DATA_DIR, WAL and SHM included, the vector index's SQLite and HNSW snapshots, blobs, outbox, and the
 * server's and CLI's logs at `trace`) and, where PostgreSQL answers (CI; skipped locally per
 * test/helpers/servers.ts), PostgreSQL (`pg_dump` of the test's schema, every table's rows as text, the
 * raw pages of every relation in it and, where readable, its files, plus DATA_DIR), with Idempotency-Key
 * answers and rate limits in Redis where it answers (every value under the run's prefix is scanned). Search (1:N) no longer finds the face and
 * `npm run cli -- replay` rebuilds without it.
 *
 * The capabilities that store a data subject are a list of {@link CapabilitySetup}s: each enrols its data
 * under the subject with the marker and says which byte sequences must disappear: face and fingerprint
 * (by `subject_id`), signing and e-mail verification (by the marker's address, `email`), OCR of an INE
 * (by `subject_id`: the call's stored Idempotency-Key answer and usage row), usage export (a call naming
 * the subject with the marker as User-Agent, exported with details; by `subject_id`). Adding a capability
 * is one more entry. The signing audit command verifies the
 * document's chain with its former head after the erasure and after the replay.
 *
 * The server is closed and started again before the erasure, so the vector index's f16 snapshot exists
 * and the scan's positive control finds every needle before it must find none after.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonCalls, multipartForm, startTestServer, type TestServer } from '../helpers/server.ts';
import { f16Window, f32Window, filesUnder, scanBuffers, textNeedle, type Hit, type Needle } from '../helpers/byte-scan.ts';
import { ROOT } from '../helpers/processes.ts';
import { startTestDnsServer } from '../helpers/email-dns-server.ts';
import { EMAIL_TEST_ZONE } from '../helpers/email-fixture-zone.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../helpers/signing.ts';
import { SAMPLE_INE, renderIneFront } from '../helpers/ocr-fixtures.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';
import { redisReachable, testRedisUrl } from '../helpers/redis.ts';
import { Redis } from 'ioredis';
import { decodeTemplate } from '../../domain/face-matching/events.ts';
import { TEMPLATES_COLLECTION, type TemplateDoc } from '../../domain/fingerprint/deps.ts';
import { normaliseVector } from '../../infra/vector-index/embedded/index.ts';
import { loggerOptions } from '../../apps/platform/platform.ts';

const facesDir = path.join(ROOT, '../shared/data/faces/face-api-js/images');
const fpDir = path.join(ROOT, '../shared/data/fingerprint/fvc2002/DB1_B');
const haveData = existsSync(facesDir) && existsSync(fpDir);
if (!haveData) console.warn(`privacy byte-scan test skipped: ${facesDir} or ${fpDir} is absent`);
const face = (who: string, n: number) => readFileSync(path.join(facesDir, who, `${who}${n}.png`));
const isoTemplate = (name: string) => readFileSync(path.join(fpDir, name));

const TIMEOUT = 900_000;
const pgReady = haveData && (await postgresReachable('privacy byte scan on PostgreSQL'));
// The PostgreSQL profile is the scaled-out one: Idempotency-Key answers (and rate limits) in Redis where it answers.
const redisReady = pgReady && (await redisReachable('privacy byte scan on PostgreSQL with Redis idempotency keys'));

/**
 * A byte sequence that must be gone after the erasure; `seenBefore`: the profile stores it as such, so the
 * scan must find it before the erasure (the positive control). Other renderings (an upload's own bytes, a
 * base64 text of what is stored raw) are looked for in case a log or a file keeps them. `seenIn`: the
 * positive control also requires a hit in a source whose name matches (the store that must forget it).
 */
type ScanNeedle = Needle & { seenBefore?: boolean; seenIn?: RegExp };

/** What a capability setup gets: the running server, an admin key, the subject and its marker. */
interface SetupContext {
  s: TestServer;
  key: string;
  subjectId: string;
  marker: string;
  /** Runs `npm run cli -- <args>` on the profile's stores; its output is scanned with the rest. */
  cli(args: string[]): Promise<string>;
}

/** A capability that stores data about a subject. */
interface CapabilitySetup {
  name: string;
  /** Fields this capability adds to the erasure request (e.g. `{subject_id}`, `{email}`). */
  request(ctx: SetupContext): Record<string, string>;
  /** Stores the subject's data over HTTP; returns what must be gone after the erasure (the marker is added by the test). */
  enrol(ctx: SetupContext): Promise<ScanNeedle[]>;
  /** Files (scan source names) that must hold the marker before the erasure: the positive control of a store. */
  markerIn?: RegExp[];
  /** Over HTTP, after the erasure (and after a replay): the capability no longer finds the subject. */
  gone(ctx: SetupContext): Promise<void>;
}

/**
 * Where the profile keeps `Idempotency-Key` answers: `idempotency.sqlite` (embedded), or Redis values under
 * the run's prefix (`redis <prefix>idem:...`, the PostgreSQL profile where Redis answers).
 */
const IDEMPOTENCY_STORE_SOURCE = /idempotency\.sqlite|^redis \S*:idem:/;

/** Multipart calls; a 503 (inference timed out on a loaded machine: "retry later") is retried. */
const calls = (s: () => TestServer) => {
  const img = jsonCalls(s, 'img');
  const bin = jsonCalls(s);
  const retry = (c: typeof img) => async (key: string, url: string, fields: Parameters<typeof img.post>[2]) => {
    for (let attempt = 1; ; attempt++) {
      const r = await c.post(key, url, fields);
      if (r.status !== 503 || attempt === 5) return r;
    }
  };
  return { img: retry(img), bin: retry(bin), get: img.get };
};

/** A 16-float window in the middle of the template, and the same floats L2-normalised, in f32 and f16. */
function templateNeedles(name: string, template: Float32Array): ScanNeedle[] {
  const unit = normaliseVector(template, template.length);
  return [
    { name: `${name} f32`, bytes: f32Window(template, 200, 16) },
    { name: `${name} f32 normalised`, bytes: f32Window(unit, 200, 16) },
    { name: `${name} f16`, bytes: f16Window(unit, 200, 16), seenBefore: true }, // the HNSW snapshot
  ];
}

const faceSetup: CapabilitySetup = {
  name: 'face matching',
  request: (c) => ({ subject_id: c.subjectId }),
  markerIn: [IDEMPOTENCY_STORE_SOURCE],
  async enrol({ s, key, subjectId, marker }) {
    const { img } = calls(() => s);
    const r = await img(key, '/v1/face-matching/enroll', {
      image: face('sheldon', 1), subject_id: subjectId, liveness_score: '0.9', enrollment_source: `${marker}-source`, metadata: JSON.stringify({ name: marker }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The template as stored: the enrolment event, read through the privacy layer before the erasure.
    const enrolled = (await s.ctx.events.readStream(`face-embedding-${r.body.embeddingId}`)).events[0]!;
    const b64 = (enrolled.data as { template_f32le_b64: string }).template_f32le_b64;
    // A 1:N search with an Idempotency-Key: its stored answer carries the match's client metadata.
    const searched = await s.fetch('/v1/face-matching/search', { method: 'POST', key, headers: { 'idempotency-key': 'scan-search-1' }, body: multipartForm({ image: face('sheldon', 2), threshold: '0' }, 'img') });
    expect(searched.status).toBe(200);
    expect(JSON.stringify(await searched.json())).toContain(marker);
    return [...templateNeedles('face template', decodeTemplate(b64)), textNeedle('face template base64', b64.slice(800, 864))];
  },
  async gone({ s, key, subjectId }) {
    const { img, get } = calls(() => s);
    const found = await img(key, '/v1/face-matching/search', { image: face('sheldon', 2), threshold: '0' });
    expect(found.status).toBe(200);
    expect(found.body.matches.map((m: { subject_id: string }) => m.subject_id)).not.toContain(subjectId);
    const listed = await get(key, `/v1/face-matching/embeddings?active_only=false&subject_id=${subjectId}`);
    expect(listed.body.embeddings.every((e: { is_active: boolean; metadata: object }) => !e.is_active && Object.keys(e.metadata).length === 0)).toBe(true);
  },
};

const fingerprintSetup: CapabilitySetup = {
  name: 'fingerprint matching',
  request: (c) => ({ subject_id: c.subjectId }),
  async enrol({ s, key, subjectId, marker }) {
    const { bin } = calls(() => s);
    const upload = isoTemplate('101_1.iso');
    const r = await bin(key, '/v1/fingerprint-matching/enroll', { template: upload, subject_id: subjectId, metadata: JSON.stringify({ name: marker }) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const col = await s.ctx.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION);
    const [doc] = await col.find({ subject_id: subjectId });
    const minutiae = doc!.minutiae_b64;
    const needles: ScanNeedle[] = [
      // The uploaded ISO 19794-2 record's minutiae (past its 28-byte headers) and the stored template.
      { name: 'fingerprint upload', bytes: upload.subarray(28, 28 + 48) },
      { ...textNeedle('fingerprint minutiae base64', minutiae.slice(0, 64)), seenBefore: true }, // the read model
      { name: 'fingerprint minutiae', bytes: Buffer.from(minutiae, 'base64').subarray(0, 48) },
    ];
    if (doc!.field_b64) needles.push(textNeedle('fingerprint orientation field base64', doc!.field_b64.slice(400, 464)));
    return needles;
  },
  async gone({ s, key, subjectId }) {
    const { bin } = calls(() => s);
    const r = await bin(key, '/v1/fingerprint-matching/search', { template: isoTemplate('101_2.iso'), threshold: '0' });
    expect(r.status).toBe(200);
    expect(r.body.candidates.map((c: { subjectId: string }) => c.subjectId)).not.toContain(subjectId);
  },
};

/** The marker's e-mail address (the service compares and may store addresses in lower case). */
const markerEmail = (marker: string) => `${marker}@example.com`;

/** The signing document of the subject (set by `enrol`, checked by `gone`). */
let signingDocument = '';
let signingHead = '';

/**
 * Signing: a document (not finalized: a finalized one is blocked, not shredded) whose title and only
 * signer carry the marker (name, e-mail address, typed signature), invited by mail and signed; erased by
 * e-mail address. The signing audit command verifies the chain with the same head after the erasure.
 */
const signingSetup: CapabilitySetup = {
  name: 'signing',
  request: (c) => ({ email: markerEmail(c.marker) }),
  markerIn: [/outbox\//],
  async enrol({ s, key, marker, cli }) {
    const email = markerEmail(marker);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
    form.set('title', `Contrato ${marker}`);
    form.set('signers', JSON.stringify([{ email, name: `Ana ${marker}`, order: 1 }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { document_id: string } }).data.document_id;
    const sent = await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(sent.status).toBe(200);
    const mail = await waitFor(() => readOutbox(s.ctx.config.DATA_DIR).find((x) => x.to.toLowerCase().includes(email.toLowerCase()) && x.body.includes(id)), 60_000, 'invitation');
    const t = new URL(s.url + linkOf(mail)).searchParams.get('t')!;
    await fetch(`${s.url}/sign/${id}?t=${t}`);
    const signed = await fetch(`${s.url}/sign/${id}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: `Ana ${marker}` }).toString(),
    });
    expect(signed.status).toBe(200);
    const view = await s.fetch(`/v1/signing/documents/${id}`, { key });
    expect(await view.text()).toContain(marker);
    const audit = JSON.parse((await cli(['signing', 'audit', '--document', id])).trim().split('\n').filter((l) => l.startsWith('{')).at(-1)!);
    expect(audit.chain.ok).toBe(true);
    signingDocument = id;
    signingHead = audit.chain.head;
    return [textNeedle('signing: lower-case marker', marker.toLowerCase())];
  },
  async gone({ s, key, marker, cli }) {
    const view = await s.fetch(`/v1/signing/documents/${signingDocument}`, { key });
    expect(view.status).toBe(200);
    expect((await view.text()).toLowerCase()).not.toContain(marker.toLowerCase());
    const listed = await s.fetch('/v1/signing/documents?limit=100', { key });
    expect((await listed.text()).toLowerCase()).not.toContain(marker.toLowerCase());
    const audit = JSON.parse((await cli(['signing', 'audit', '--document', signingDocument])).trim().split('\n').filter((l) => l.startsWith('{')).at(-1)!);
    expect(audit.chain).toMatchObject({ ok: true, head: signingHead });
  },
};

/**
 * E-mail verification of the marker's address (the domain is not in the fixture zone: INVALID_DOMAIN,
 * answered by the loopback DNS server), single and batch; the batch with an Idempotency-Key, whose stored
 * answer names the address. Erased by e-mail address (the same request as signing).
 */
const emailVerificationSetup: CapabilitySetup = {
  name: 'e-mail verification',
  request: (c) => ({ email: markerEmail(c.marker) }),
  markerIn: [IDEMPOTENCY_STORE_SOURCE],
  async enrol({ s, key, marker }) {
    const email = markerEmail(marker);
    const one = await s.fetch(`/v1/email/verify?email=${encodeURIComponent(email)}`, { key });
    expect(one.status).toBe(200);
    expect(await one.text()).toContain(marker);
    const batch = await s.fetch('/v1/email/verify/batch', { method: 'POST', key, headers: { 'content-type': 'application/json', 'idempotency-key': 'scan-email-batch-1' }, body: JSON.stringify({ emails: [email, 'juan@gmial.com'] }) });
    expect(batch.status).toBe(200);
    expect(await batch.text()).toContain(marker);
    return [];
  },
  async gone({ s, key, marker }) {
    // The stored answer is gone: the same Idempotency-Key runs the call again (answered, not replayed).
    const again = await s.fetch('/v1/email/verify/batch', { method: 'POST', key, headers: { 'content-type': 'application/json', 'idempotency-key': 'scan-email-batch-1' }, body: JSON.stringify({ emails: ['juan@gmial.com'] }) });
    expect(again.status).toBe(200);
    expect((await again.text()).toLowerCase()).not.toContain(marker.toLowerCase());
  },
};

/**
 * Text of ours printed on the subject's INE (its street): the extraction carries it into the answer. OCR
 * reads no lower case or punctuation reliably, so it is not the marker; a fixed string is unique enough
 * (a fresh DATA_DIR and schema per run), and a fixed image reads the same every run.
 */
const OCR_TOKEN = 'QZWMARKERXJ';

/**
 * OCR of an identity document (an INE front rendered with {@link OCR_TOKEN} as its street) with
 * `subject_id`, an Idempotency-Key and the marker as User-Agent: the stored answer holds the extraction
 * (names, CURP, address) and the usage row the marker; both must be gone after the erasure by subject id; the log's `ocr.id.extracted` holds nothing of the holder
 * (the CURP masked to its first 4 characters, as it was kept before, is looked for too).
 */
const ocrSetup: CapabilitySetup = {
  name: 'ocr',
  request: (c) => ({ subject_id: c.subjectId }),
  async enrol({ s, key, subjectId, marker }) {
    const front = await renderIneFront({ ...SAMPLE_INE, street: `AV ${OCR_TOKEN} 123` }, { jpeg: 90 });
    const form = () => multipartForm({ front, subject_id: subjectId }, 'jpg');
    let r: Response;
    for (let attempt = 1; ; attempt++) {
      // The marker as User-Agent: the call's usage row names the subject, so the erasure clears it.
      r = await s.fetch('/v1/ocr/extract/id', { method: 'POST', key, headers: { 'idempotency-key': 'scan-ocr-1', 'user-agent': marker }, body: form() });
      if (r.status !== 503 || attempt === 3) break;
    }
    const body = (await r.json()) as { fields: { curp: string; claveElector: string; surname: string; address: string } };
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.fields.address).toContain(OCR_TOKEN);
    const stored = { seenBefore: true, seenIn: IDEMPOTENCY_STORE_SOURCE };
    return [
      { ...textNeedle('extracted street (ours)', OCR_TOKEN), ...stored },
      { ...textNeedle('extracted CURP', body.fields.curp), ...stored },
      { ...textNeedle('extracted clave de elector', body.fields.claveElector), ...stored },
      { ...textNeedle('extracted surnames', body.fields.surname), ...stored },
      { ...textNeedle('extracted address', body.fields.address), ...stored },
      textNeedle('CURP masked to its first 4 characters', `${body.fields.curp.slice(0, 4)}**************`),
      { name: 'uploaded image', bytes: front.subarray(front.length >> 1, (front.length >> 1) + 48) },
    ];
  },
  async gone({ s, key }) {
    // The stored answer is gone: its key is free, so a call with it that fails validation (an empty
    // subject_id: 400, never stored) is answered as such, not 422 idempotency_key_reused. Nothing is stored again.
    const r = await s.fetch('/v1/ocr/extract/id', { method: 'POST', key, headers: { 'idempotency-key': 'scan-ocr-1' }, body: multipartForm({ front: Buffer.from('x'), subject_id: '' }, 'jpg') });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('invalid_request');
  },
};

/** The usage export of the subject's call (set by `enrol`, checked by `gone`). */
let usageExport = '';

/**
 * Usage export: a call that names the subject (`?subject_id=` of a face-matching route) with the marker as
 * its User-Agent, then an export of the day with `include_details` (IP address and user agent columns):
 * the file in the blob store holds the marker before the erasure. The erasure by subject id clears the
 * call's usage row and deletes the export file (the export then reads `expired`); the log's copy of the
 * user agent is sealed under the tenant's key of the day, so it never shows in clear.
 */
const usageExportSetup: CapabilitySetup = {
  name: 'usage export',
  request: (c) => ({ subject_id: c.subjectId }),
  markerIn: [/blobs\//],
  async enrol({ s, key, subjectId, marker }) {
    const listed = await s.fetch(`/v1/face-matching/embeddings?subject_id=${encodeURIComponent(subjectId)}`, { key, headers: { 'user-agent': marker } });
    expect(listed.status).toBe(200);
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const day = new Date(s.ctx.clock.now()).toISOString().slice(0, 10);
    const requested = await s.fetch('/v1/usage/export', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ format: 'csv', start_date: day, end_date: day, include_details: true }) });
    const body = (await requested.json()) as { export_id: string };
    expect(requested.status, JSON.stringify(body)).toBe(202);
    usageExport = body.export_id;
    const done = await waitFor(async () => {
      const st = (await (await s.fetch(`/v1/usage/export/${usageExport}`, { key })).json()) as { status: string; download_url: string | null };
      if (st.status === 'failed') throw new Error(`usage export failed: ${JSON.stringify(st)}`);
      return st.status === 'completed' ? st : null;
    }, 60_000, 'usage export');
    // The signed link, on this server (its origin may be the configured public one).
    const link = new URL(done.download_url!);
    const file = await (await fetch(`${s.url}${link.pathname}${link.search}`)).text();
    expect(file).toContain(marker);
    return [];
  },
  async gone({ s, key, marker }) {
    const st = (await (await s.fetch(`/v1/usage/export/${usageExport}`, { key })).json()) as { status: string; download_url: string | null };
    expect(st.status).toBe('expired');
    expect(st.download_url).toBeNull();
    expect(JSON.stringify(st)).not.toContain(marker);
  },
};

/** Every capability that stores a data subject today. */
const SETUPS: CapabilitySetup[] = [faceSetup, fingerprintSetup, signingSetup, emailVerificationSetup, ocrSetup, usageExportSetup];

/** A store profile: configuration, and the bytes it keeps outside DATA_DIR (PostgreSQL). */
interface Profile {
  name: string;
  config: Record<string, string>;
  /** Named byte sources outside DATA_DIR (a pg_dump, raw pages...). */
  external(): Promise<Array<[string, Buffer]>>;
  /** External sources (by name) that must hold the marker before the erasure: the positive control of each kind. */
  markerIn?: () => RegExp[];
  cleanup(): Promise<void>;
}

/** Runs `npm run cli -- <args>`; resolves with everything it printed (stdout and stderr), for the scan. */
function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'trace' }, timeout: 300_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => (error ? reject(new Error(`cli ${args.join(' ')}: ${stderr || error.message}`)) : resolve(`${stdout}\n${stderr}`)));
  });
}

/** The whole flow on one profile; `logDir` receives the servers' logs (pino at trace, one file per start). */
async function byteScan(profile: Profile): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sello-scan-'));
  const logDir = mkdtempSync(path.join(tmpdir(), 'sello-scan-logs-'));
  const cliOutput: Array<[string, Buffer]> = [];
  let erased = false;
  let starts = 0;
  const dns = await startTestDnsServer(EMAIL_TEST_ZONE);
  const start = () =>
    startTestServer({
      // JOB_TIMEOUT_MS: cold OCR workers load their models on the first job (a minute on a loaded machine).
      config: { DATA_DIR: dataDir, JOB_TIMEOUT_MS: '200000', EMAIL_DNS_SERVERS: dns.server, EMAIL_DNS_TIMEOUT_MS: '3000', EMAIL_DNS_ATTEMPTS: '1', ...profile.config },
      overrides: { log: pino(loggerOptions('trace'), pino.destination({ dest: path.join(logDir, `server-${++starts}.log`), sync: true })) },
    });
  const marker = `MARKER-scan-${Math.random().toString(36).slice(2, 10)}`;
  const subjectId = `subj-scan-${Math.random().toString(36).slice(2, 8)}`;
  const scan = async (label: string): Promise<Hit[]> => {
    const t0 = performance.now();
    const files = [dataDir, logDir].flatMap((d) => filesUnder(d).map((f) => [`${path.basename(d)}/${path.relative(d, f)}`, readFileSync(f)] as [string, Buffer]));
    const sources = [...files, ...cliOutput, ...(await profile.external())];
    const hits = scanBuffers(sources, needles);
    const bytes = sources.reduce((n, [, b]) => n + b.length, 0);
    console.log(`privacy byte scan [${profile.name}] ${label}: ${sources.length} sources (${files.length} files), ${(bytes / 1048576).toFixed(1)} MB, ${needles.length} needles, ${Math.round(performance.now() - t0)} ms, ${hits.length} hits`);
    return hits;
  };
  const needles: ScanNeedle[] = [{ ...textNeedle('marker', marker), seenBefore: true }];
  let s: TestServer | undefined;
  try {
    s = await start();
    const tenant = await s.createTenant('enterprise');
    const key = (await s.createKey(tenant, ['read', 'write', 'admin'])).key;
    const env = { DATA_DIR: dataDir, ...profile.config, SELLO_PRIVACY_STRICT: process.env.SELLO_PRIVACY_STRICT ?? '0' };
    const cli = async (args: string[]) => {
      const out = await runCli(args, env);
      // What the CLI prints while the subject exists is the caller's; from the erasure on it is scanned.
      if (erased) cliOutput.push([`cli ${args[0]} ${args[1] ?? ''} output ${cliOutput.length}`, Buffer.from(out)]);
      return out;
    };
    const ctx = (): SetupContext => ({ s: s!, key, subjectId, marker, cli });
    for (const setup of SETUPS) needles.push(...(await setup.enrol(ctx())).map((n) => ({ ...n, name: `${setup.name}: ${n.name}` })));
    // Another subject stays enrolled, so the tenant's vector namespace and its snapshot live on.
    const other = await calls(() => s!).img(key, '/v1/face-matching/enroll', { image: face('penny', 1), subject_id: 'subj-keep', liveness_score: '0.9' });
    expect(other.status).toBe(200);
    await s.close();
    s = undefined;

    // Positive control: with the server closed (the f16 HNSW snapshot written), the scan sees every needle
    // except renderings that are not stored on this profile (f32 raw or normalised: one of them).
    const beforeHits = await scan('before the erasure');
    const before = new Set(beforeHits.map((h) => h.needle));
    const missing = needles.filter((n) => n.seenBefore && !before.has(n.name)).map((n) => n.name);
    expect(missing, 'needles the scan should find before the erasure').toEqual([]);
    const notWhere = needles.filter((n) => n.seenIn && !beforeHits.some((h) => h.needle === n.name && n.seenIn!.test(h.source))).map((n) => `${n.name} in ${n.seenIn}`);
    expect(notWhere, 'needles the scan should find in their store before the erasure').toEqual([]);
    expect([...before].some((n) => /face template f32/.test(n)), 'the face template as float32').toBe(true);
    for (const where of [...SETUPS.flatMap((x) => x.markerIn ?? []), ...(profile.markerIn?.() ?? [])]) expect(beforeHits.some((h) => h.needle === 'marker' && where.test(h.source)), `marker in ${where}`).toBe(true);

    s = await start();
    erased = true;
    const request = Object.assign({}, ...SETUPS.map((x) => x.request(ctx())));
    const r = await s.fetch('/v1/privacy/erasures', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const body = (await r.json()) as { status: string };
    expect(r.status, JSON.stringify(body)).toBe(202);
    expect(body.status).toBe('completed');
    expect(await scan('after the erasure, server running'), 'after the erasure, the server running').toEqual([]);
    for (const setup of SETUPS) await setup.gone(ctx());
    await s.close();
    s = undefined;
    expect(await scan('after the erasure, server closed'), 'after the erasure, the server closed').toEqual([]);

    // `npm run cli -- replay` rebuilds every read model and the vector index without the subject.
    await cli(['replay']);
    s = await start();
    for (const setup of SETUPS) await setup.gone(ctx());
    const kept = await calls(() => s!).img(key, '/v1/face-matching/search', { image: face('penny', 2), threshold: '0' });
    expect(kept.body.matches[0].subject_id).toBe('subj-keep');
    await s.close();
    s = undefined;
    expect(await scan('after cli replay'), 'after the replay').toEqual([]);
  } catch (error) {
    // What went wrong inside the server, from its own logs (warnings and errors only).
    for (const f of filesUnder(logDir)) {
      const bad = readFileSync(f, 'utf8').split('\n').filter((l) => /"level":(40|50|60)/.test(l));
      if (bad.length) console.error(`${path.basename(f)}:\n${bad.slice(-20).join('\n').slice(0, 8000)}`);
      // Log lines that name the subject (a scan hit in a log says where it came from).
      const naming = readFileSync(f, 'utf8').split('\n').filter((l) => l.toLowerCase().includes(marker.toLowerCase()));
      if (naming.length) console.error(`${path.basename(f)}, lines naming the subject:\n${naming.slice(0, 5).map((l) => l.slice(0, 800)).join('\n')}`);
    }
    throw error;
  } finally {
    await s?.close();
    await dns.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
    await profile.cleanup();
  }
}

describe.skipIf(!haveData)('privacy byte scan: nothing of an erased subject stays in what the service wrote', () => {
  it('embedded profile (SQLite, vector index files, blobs, outbox, logs)', async () => {
    await byteScan({ name: 'embedded', config: {}, external: async () => [], cleanup: async () => undefined });
  }, TIMEOUT);

  const schemas: string[] = [];
  afterAll(async () => dropSchemas(schemas));

  it.runIf(pgReady)('PostgreSQL profile (pg_dump, rows as text and raw pages of every relation, DATA_DIR)', async () => {
    const url = testDatabaseUrl();
    const schema = uniqueSchema('sello_scan');
    schemas.push(schema);
    // Created here: the event store's and the key store's migrations both create it at first use, and two
    // concurrent CREATE SCHEMA IF NOT EXISTS can collide on a new schema.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).finally(() => admin.end());
    const redisPrefix = `${schema}:`;
    const redis: Record<string, string> = redisReady ? { REDIS_URL: testRedisUrl(), REDIS_PREFIX: redisPrefix, IDEMPOTENCY_STORE: 'redis', RATE_LIMITER: 'redis' } : {};
    await byteScan({
      name: redisReady ? 'postgres+redis' : 'postgres',
      config: { EVENT_STORE: 'postgres', READ_MODELS: 'postgres', DATABASE_URL: url, DATABASE_SCHEMA: schema, ...redis },
      external: async () => [...(await postgresBytes(url, schema)), ...(redisReady ? await redisBytes(redisPrefix) : [])],
      // The face's metadata is in its read-model row: the dump, the raw pages and (where readable) the files hold it.
      markerIn: () => [/^pg_dump/, /^page /, ...(relationFilesSkipped ? [] : [/^file /])],
      cleanup: async () => (redisReady ? redisDelete(redisPrefix) : undefined),
    });
    console.log(`privacy byte scan [postgres]: ${relationFilesRead} relation files read over the scans${relationFilesSkipped ? ' (data directory out of reach: raw pages through pageinspect only)' : ''}`);
  }, TIMEOUT);
});

/** Every value under `prefix` in the test Redis (strings, hashes, lists, sets, sorted sets), named `redis <key>`. */
async function redisBytes(prefix: string): Promise<Array<[string, Buffer]>> {
  const r = new Redis(testRedisUrl());
  const out: Array<[string, Buffer]> = [];
  try {
    for (const key of await redisKeys(r, prefix)) {
      const type = await r.type(key);
      const parts: Buffer[] =
        type === 'string' ? [(await r.getBuffer(key)) ?? Buffer.alloc(0)]
        : type === 'hash' ? await r.hgetallBuffer(key).then((h) => Object.entries(h).flatMap(([f, v]) => [Buffer.from(f), v]))
        : type === 'list' ? await r.lrangeBuffer(key, 0, -1)
        : type === 'set' ? await r.smembersBuffer(key)
        : type === 'zset' ? await r.zrangeBuffer(key, 0, -1)
        : [];
      out.push([`redis ${key}`, Buffer.concat([Buffer.from(key), ...parts])]);
    }
  } finally {
    r.disconnect();
  }
  return out;
}

/** The keys under `prefix` (SCAN). */
async function redisKeys(r: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await r.scan(cursor, 'MATCH', `${prefix.replace(/[\\*?[\]]/g, '\\$&')}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Deletes the run's keys (its own prefix only). */
async function redisDelete(prefix: string): Promise<void> {
  const r = new Redis(testRedisUrl());
  try {
    const keys = await redisKeys(r, prefix);
    if (keys.length) await r.del(...keys);
  } finally {
    r.disconnect();
  }
}

/**
 * The relations' own files in PostgreSQL's data directory (every fork and segment: `base/<db>/<filenode>`,
 * `_fsm`, `_vm`, `.1`...), read after a `CHECKPOINT` so they hold what the shared buffers hold (before it,
 * a page the erasure rewrote may still be on disk as it was; the WAL keeps it too: docs/privacy.md). Only
 * where this process can read the directory (a local server run as root or as its owner); otherwise the
 * reason is printed once and the raw pages read through `pageinspect` stand for them (CI's service container).
 */
async function relationFiles(client: pg.Client, relations: readonly string[]): Promise<Array<[string, Buffer]>> {
  const dataDir = (await client.query<{ d: string }>(`SELECT current_setting('data_directory') AS d`)).rows[0]!.d;
  try {
    accessSync(path.join(dataDir, 'base'), constants.R_OK);
  } catch (error) {
    if (!relationFilesSkipped) console.warn(`privacy byte scan: PostgreSQL's table files are not readable here (${dataDir}: ${(error as Error).message}); their raw pages are read through pageinspect instead`);
    relationFilesSkipped = true;
    return [];
  }
  await client.query('CHECKPOINT');
  const out: Array<[string, Buffer]> = [];
  for (const rel of relations) {
    const rows = (await client.query<{ p: string | null }>('SELECT pg_relation_filepath($1::regclass) AS p', [rel])).rows;
    const file = rows[0]?.p;
    if (!file) continue;
    const dir = path.join(dataDir, path.dirname(file));
    const base = path.basename(file);
    for (const name of readdirSync(dir).filter((n) => n === base || new RegExp(`^${base}(_[a-z]+)?(\\.[0-9]+)?$`).test(n))) {
      out.push([`file ${path.join(path.dirname(file), name)} of ${rel}`, readFileSync(path.join(dir, name))]);
    }
  }
  relationFilesRead += out.length;
  return out;
}
let relationFilesSkipped = false;
/** How many relation files the PostgreSQL scans read (printed by the test: 0 where the directory is out of reach). */
let relationFilesRead = 0;

/** The schema's bytes as PostgreSQL holds them: `pg_dump -n`, each table's rows as text, each relation's raw pages and, where reachable, its files. */
async function postgresBytes(url: string, schema: string): Promise<Array<[string, Buffer]>> {
  const out: Array<[string, Buffer]> = [];
  const dump = await new Promise<Buffer>((resolve, reject) =>
    execFile('pg_dump', ['--dbname', url, '--schema', schema, '--no-owner'], { encoding: 'buffer', maxBuffer: 1 << 30 }, (error, stdout, stderr) =>
      error ? reject(new Error(`pg_dump: ${stderr.toString() || error.message}`)) : resolve(stdout)),
  );
  out.push([`pg_dump -n ${schema}`, dump]);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Tables, their TOAST tables and indexes: every relation with storage in the schema.
    const rels = await client.query<{ qname: string; kind: string }>(
      `SELECT c.oid::regclass::text AS qname, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')
       UNION SELECT t.oid::regclass::text, t.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_class t ON t.oid = c.reltoastrelid
        WHERE n.nspname = $1`,
      [schema],
    );
    for (const r of rels.rows.filter((x) => x.kind === 'r')) {
      const rows = await client.query<{ t: string }>(`SELECT t::text AS t FROM ${r.qname} t`);
      out.push([`rows of ${r.qname}`, Buffer.from(rows.rows.map((x) => x.t).join('\n'))]);
    }
    // The raw 8 KB pages (pageinspect, a contrib extension; needs a superuser, as in CI).
    await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
    for (const r of rels.rows) {
      const { rows } = await client.query<{ n: string }>('SELECT pg_relation_size($1::regclass) / 8192 AS n', [r.qname]);
      for (let i = 0; i < Number(rows[0]!.n); i++) {
        const page = await client.query<{ p: Buffer }>('SELECT get_raw_page($1, $2) AS p', [r.qname, i]);
        out.push([`page ${i} of ${r.qname}`, page.rows[0]!.p]);
      }
    }
    out.push(...(await relationFiles(client, rels.rows.map((r) => r.qname))));
  } finally {
    await client.end();
  }
  return out;
}
