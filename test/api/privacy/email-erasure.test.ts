/**
 * `POST /v1/privacy/erasures` with `email` over real HTTP (issue 28): a signer's name, e-mail address,
 * IP address, user agent and typed name are sealed in the event log under the document's key, so the raw
 * bytes of `events.sqlite` and its WAL never hold them; an erasure of the address destroys the key of every
 * document not finalized with that signer (the key store's files keep no copy of the wrapped key), the
 * document's API views and listing no longer show the signer, `npm run cli -- signing audit` verifies the
 * chain with the same head before and after, the outbox mails to the address are deleted, a finalized
 * document is left for blocking (listed by id), and the receipt holds no personal data. Idempotent.
 *
 * Runs on the embedded profile (SQLite event store and key store: their raw files, WAL included, are
 * scanned) and on PostgreSQL (event store and key store in a schema of their own: `es_events` and
 * `privacy_data_keys` rows as text; skipped with a printed reason without DATABASE_URL, a failure under
 * SELLO_REQUIRE_SERVERS=1), with the same assertions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../../helpers/postgres.ts';

const ROOT = join(import.meta.dirname, '../../..');
const MARK = 'zqmark7e41';
const ANA = `ana.${MARK}@example.com`;
// The signer's user agent: sealed in the signing events; usage events keep it in clear (their own retention, docs/privacy.md).
const UA = 'Agent-ua5c02d9';
let s: TestServer;
let key: string;
let tenantId: string;

/** Where the event store and key store keep their bytes, and how a test reads them. */
interface Profile {
  name: string;
  /** Server (and CLI) configuration. */
  config: Record<string, string>;
  /** Stored signing and webhook events holding `text` in clear. */
  storedRowsWith(text: string): Promise<number>;
  /** Whether the event store's stored bytes hold `text`. */
  eventStoreHas(text: string): Promise<boolean>;
  /** The wrapped data key of `subject` as stored. */
  wrappedKey(subject: string): Promise<Buffer>;
  /** Whether the key store's stored bytes hold `bytes`. */
  keyStoreHas(bytes: Buffer): Promise<boolean>;
  cleanup(): Promise<void>;
}

const embedded: Profile = {
  name: 'embedded (SQLite)',
  config: {},
  async storedRowsWith(text) {
    const db = new Database(join(s.ctx.config.DATA_DIR, 'events.sqlite'), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) n FROM events WHERE (stream_name LIKE 'signing-%' OR stream_name LIKE 'webhook-events-%') AND (data LIKE ? OR metadata LIKE ?)").get(`%${text}%`, `%${text}%`) as { n: number }).n;
    } finally {
      db.close();
    }
  },
  // The files as raw bytes, WAL included.
  async eventStoreHas(text) {
    const dir = s.ctx.config.DATA_DIR;
    return Buffer.concat(['events.sqlite', 'events.sqlite-wal'].filter((f) => existsSync(join(dir, f))).map((f) => readFileSync(join(dir, f)))).includes(text);
  },
  async wrappedKey(subject) {
    const kdb = new Database(join(s.ctx.config.DATA_DIR, 'keys', 'keys.sqlite'), { readonly: true });
    try {
      return (kdb.prepare('SELECT wrapped FROM data_keys WHERE subject = ?').get(subject) as { wrapped: Buffer }).wrapped;
    } finally {
      kdb.close();
    }
  },
  async keyStoreHas(bytes) {
    const dir = join(s.ctx.config.DATA_DIR, 'keys');
    return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f)))).includes(bytes);
  },
  cleanup: async () => undefined,
};

/** PostgreSQL event store and key store in a fresh schema (read models stay SQLite in DATA_DIR). */
function postgresProfile(): Profile {
  const schema = uniqueSchema('sello_email_erase');
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
    const c = new pg.Client({ connectionString: testDatabaseUrl() });
    await c.connect();
    try {
      return (await c.query<R>(sql, params)).rows;
    } finally {
      await c.end();
    }
  };
  return {
    name: 'PostgreSQL',
    config: {
      EVENT_STORE: 'postgres',
      READ_MODELS: 'sqlite',
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_SCHEMA: schema,
      // A shared event store needs one master key on every process (the server and the CLI here).
      PRIVACY_MASTER_KEY: createHash('sha256').update(`sello-test-master:${schema}`).digest('hex'),
    },
    async storedRowsWith(text) {
      const rows = await query<{ n: string }>(
        `SELECT count(*) n FROM ${schema}.es_events WHERE (stream_name LIKE 'signing-%' OR stream_name LIKE 'webhook-events-%') AND (data::text LIKE $1 OR metadata::text LIKE $1)`,
        [`%${text}%`],
      );
      return Number(rows[0]!.n);
    },
    // Every row of the event table as text (what pg_dump writes).
    async eventStoreHas(text) {
      const rows = await query<{ n: string }>(`SELECT count(*) n FROM ${schema}.es_events e WHERE e::text LIKE $1`, [`%${text}%`]);
      return Number(rows[0]!.n) > 0;
    },
    async wrappedKey(subject) {
      return (await query<{ wrapped: Buffer }>(`SELECT wrapped FROM ${schema}.privacy_data_keys WHERE subject = $1`, [subject]))[0]!.wrapped;
    },
    async keyStoreHas(bytes) {
      const rows = await query<{ n: string }>(`SELECT count(*) n FROM ${schema}.privacy_data_keys WHERE position($1::bytea in coalesce(wrapped, ''::bytea)) > 0`, [bytes]);
      return Number(rows[0]!.n) > 0;
    },
    async cleanup() {
      await dropSchemas([schema]);
    },
  };
}

const pgReady = await postgresReachable('e-mail erasure on PostgreSQL');
const profiles: Profile[] = [embedded, ...(pgReady ? [postgresProfile()] : [])];
let profile: Profile = embedded;

function cli(args: string[]) {
  // The server's profile, not whatever servers the environment names (CI exports DATABASE_URL, REDIS_URL...).
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|REDIS_|TEMPORAL_|KAFKA_|S3_|MINIO_|EVENT_STORE|READ_MODELS|PRIVACY_MASTER_KEY)/.test(k)));
  const r = spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...inherited, ...profile.config, DATA_DIR: s.ctx.config.DATA_DIR, LOG_LEVEL: 'silent', BOOTSTRAP: 'false' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, json: r.stdout.trim() ? JSON.parse(r.stdout.trim().split('\n').at(-1)!) : null, stderr: r.stderr };
}

async function api(method: string, url: string, body?: unknown) {
  const r = await s.fetch(url, { method, key, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: r.status, text: await r.text() };
}

/** Creates a document for `signers`, sends it, and has the first one sign (typed, with the marker). */
async function signedByAna(signers: { email: string; name: string }[]): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
  form.set('title', 'Contrato');
  form.set('signers', JSON.stringify(signers.map((x, i) => ({ ...x, order: i + 1 }))));
  const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  expect(created.status).toBe(201);
  const id = ((await created.json()) as any).data.document_id as string;
  expect((await api('POST', `/v1/signing/documents/${id}/send-invitations`, {})).status).toBe(200);
  const m = await waitFor(() => readOutbox(s.dataDir).find((x) => x.to.includes(ANA) && x.body.includes(id)), 15_000, 'invitation');
  const t = new URL(s.url + linkOf(m)).searchParams.get('t')!;
  await fetch(`${s.url}/sign/${id}?t=${t}`, { headers: { 'user-agent': UA } });
  const r = await fetch(`${s.url}/sign/${id}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA },
    body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: `Ana ${MARK}` }).toString(),
  });
  expect(r.status).toBe(200);
  return id;
}

for (const p of profiles) describe(`privacy erasures by e-mail address (${p.name})`, () => {
  beforeAll(async () => {
    profile = p;
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, ...p.config } });
    tenantId = await s.createTenant('pro');
    key = (await s.createKey(tenantId, ['read', 'write', 'admin'])).key;
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await p.cleanup();
  });

  it('seals signers in the log, erases their documents, keeps the chain verifiable and deletes their mails', async () => {
    const open = await signedByAna([{ email: ANA, name: `Ana ${MARK}` }, { email: 'otro@example.com', name: 'Otro Firmante' }]);
    const finalized = await signedByAna([{ email: ANA, name: `Ana ${MARK}` }]);
    expect((await api('POST', `/v1/signing/documents/${finalized}/finalize`)).status).toBe(200);

    // Sealed from the start: the log's raw bytes never hold the signer's name, address, user agent or typed name.
    expect(await profile.eventStoreHas(MARK)).toBe(false);
    expect(await profile.storedRowsWith(UA)).toBe(0);
    expect(await profile.storedRowsWith('"ip_address":"127.0.0.1"')).toBe(0);
    const before = cli(['signing', 'audit', '--document', open]);
    expect(before.status, before.stderr).toBe(0);
    expect(before.json.chain.ok).toBe(true);
    expect(JSON.stringify(before.json.audit_trail)).toContain(MARK); // readable while the key lives
    expect(JSON.stringify(before.json.audit_trail)).toContain(UA);
    const view = await api('GET', `/v1/signing/documents/${open}`);
    expect(view.text).toContain(ANA);
    expect(readOutbox(s.dataDir).filter((m) => m.to.includes(ANA))).toHaveLength(2);
    const otherMails = readOutbox(s.dataDir).filter((m) => m.to.includes('otro@example.com')).length;

    // The wrapped key of the open document, to look for in the key store's files afterwards.
    const wrapped = await profile.wrappedKey(`signing:${tenantId}:${open}`);
    expect(await profile.keyStoreHas(wrapped)).toBe(true);

    const r = await api('POST', '/v1/privacy/erasures', { email: ANA.toUpperCase() });
    expect(r.status, r.text).toBe(202);
    const erasure = JSON.parse(r.text);
    expect(erasure.status).toBe('completed');
    expect(erasure.data.scope).toEqual({ subject_id: false, email: true });
    const line = (kind: string) => erasure.data.erased.find((x: any) => x.kind === kind);
    expect(line('signer_records')).toMatchObject({ count: 1, document_ids: [open], stores: ['event_log', 'read_models', 'key_store'] });
    expect(line('signer_records_blocked')).toMatchObject({ count: 1, document_ids: [finalized], stores: ['read_models'] });
    expect(line('email_verifications')).toMatchObject({ count: 0 });
    expect(line('outbox_mails')).toMatchObject({ count: 2, stores: ['outbox'] });
    expect(line('data_keys')).toMatchObject({ count: 1 });
    expect(r.text.toLowerCase()).not.toContain(MARK);
    const got = await api('GET', `/v1/privacy/erasures/${erasure.erasure_id}`);
    expect(got.status).toBe(200);
    expect(got.text.toLowerCase()).not.toContain(MARK);

    // The key is gone from the key store's files; the log still holds no marker.
    expect(await profile.keyStoreHas(wrapped)).toBe(false);
    expect(await profile.eventStoreHas(MARK)).toBe(false);

    // The API no longer shows the signer of the open document (the finalized one awaits blocking).
    const after = await api('GET', `/v1/signing/documents/${open}`);
    expect(after.status).toBe(200);
    expect(after.text).not.toContain(MARK);
    expect(after.text).not.toContain('Otro Firmante');
    const list = await api('GET', '/v1/signing/documents?limit=100');
    const row = JSON.parse(list.text).data.documents?.find?.((d: any) => d.document_id === open || d.id === open) ?? JSON.parse(list.text).data.find?.((d: any) => d.document_id === open || d.id === open);
    expect(row).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(MARK);

    // The chain still verifies, with the same head; the exported events read as erased.
    const audit = cli(['signing', 'audit', '--document', open]);
    expect(audit.status, audit.stderr).toBe(0);
    expect(audit.json.chain).toMatchObject({ ok: true, head: before.json.chain.head, entries: before.json.chain.entries });
    expect(JSON.stringify(audit.json)).not.toContain(MARK);
    expect(JSON.stringify(audit.json)).not.toContain(UA);
    expect(audit.json.events[0].metadata.erased_at).toMatch(/^\d{4}-/);
    const fin = cli(['signing', 'audit', '--document', finalized]);
    expect(fin.status, fin.stderr).toBe(0);

    // The outbox keeps no mail to the address; the other signer's mails stay.
    expect(readOutbox(s.dataDir).filter((m) => m.raw.toLowerCase().includes(MARK))).toEqual([]);
    expect(readOutbox(s.dataDir).filter((m) => m.to.includes('otro@example.com'))).toHaveLength(otherMails);

    // Idempotent: nothing left to erase, the finalized document is still listed for blocking.
    const again = await api('POST', '/v1/privacy/erasures', { email: ANA });
    expect(again.status).toBe(202);
    const a = JSON.parse(again.text).data.erased;
    expect(a.find((x: any) => x.kind === 'signer_records')).toMatchObject({ count: 0 });
    expect(a.find((x: any) => x.kind === 'signer_records_blocked')).toMatchObject({ document_ids: [finalized] });
    expect(a.find((x: any) => x.kind === 'outbox_mails')).toMatchObject({ count: 0 });

    // A replay rebuilds the open document's row without the signer.
    const replay = cli(['replay']);
    expect(replay.status, replay.stderr).toBe(0);
    expect((await api('GET', `/v1/signing/documents/${open}`)).text).not.toContain(MARK);
  }, 300_000);

  it("deletes the signers' files of a shredded document (a drawn signature image), keeping the upload", async () => {
    const bea = `bea.${MARK}@example.com`;
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'b.pdf');
    form.set('title', 'Contrato dibujado');
    form.set('signers', JSON.stringify([{ email: bea, name: 'Bea', order: 1 }, { email: 'tercero@example.com', name: 'Tercero', order: 2 }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as any).data.document_id as string;
    expect((await api('POST', `/v1/signing/documents/${id}/send-invitations`, {})).status).toBe(200);
    const m = await waitFor(() => readOutbox(s.dataDir).find((x) => x.to.includes(bea) && x.body.includes(id)), 15_000, 'invitation');
    const t = new URL(s.url + linkOf(m)).searchParams.get('t')!;
    const png = await sharp({ create: { width: 300, height: 100, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><path d="M10 80 C 60 10, 120 90, 290 20" stroke="black" stroke-width="5" fill="none"/></svg>') }])
      .png()
      .toBuffer();
    const signed = await fetch(`${s.url}/sign/${id}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t, consent: 'yes', method: 'drawn', drawn_png: `data:image/png;base64,${png.toString('base64')}` }).toString(),
    });
    expect(signed.status).toBe(200);
    const files = async () => (await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).map((k) => k.slice(k.lastIndexOf('/') + 1));
    expect((await files()).filter((n) => n.startsWith('signature-'))).toHaveLength(1);

    const r = await api('POST', '/v1/privacy/erasures', { email: bea });
    expect(r.status, r.text).toBe(202);
    const erased = JSON.parse(r.text).data.erased;
    expect(erased.find((x: any) => x.kind === 'signer_records')).toMatchObject({ count: 1, document_ids: [id], stores: ['event_log', 'read_models', 'key_store', 'blob_store'] });
    expect(erased.find((x: any) => x.kind === 'signer_files')).toMatchObject({ count: 1, stores: ['blob_store'] });
    const left = await files();
    expect(left.filter((n) => n.startsWith('signature-'))).toEqual([]);
    expect(left).toContain('original.pdf');
  }, 300_000);

  it('refuses an email that is not one address, with or without subject_id', async () => {
    for (const body of [{ email: 'not-an-address' }, { email: 'a@b.example, c@d.example' }, { subject_id: 'x', email: '' }]) {
      const r = await api('POST', '/v1/privacy/erasures', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(r.text).error.details.field).toBe('email');
    }
  });
});
