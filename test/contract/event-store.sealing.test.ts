/**
 * The event store's privacy layer (infra/privacy/sealing-event-store.ts): it passes the event-store
 * contract with every event sealed, seals the personal fields of face and fingerprint enrolments under
 * the subject's key (the raw SQLite files hold neither the template nor the marker), reads them back as
 * appended, reads them as erased once the subject's key is destroyed, survives a master-key rotation,
 * refuses unclassified types and fields in strict mode, and keeps the signing audit chain verifiable over
 * commitments before and after a document key is destroyed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { SqliteKeyStore } from '../../infra/key-store/sqlite/sqlite-key-store.ts';
import { DataKeys, masterKeyId, type MasterKeys } from '../../infra/privacy/data-keys.ts';
import { SEALED_FIELD, SealingEventStore, UnclassifiedEventError } from '../../infra/privacy/sealing-event-store.ts';
import { subjectKeyId, type EventClassification } from '../../domain/privacy/classification.ts';
import { canonicalJson, documentStream, foldDocument, type SigningEvent } from '../../domain/signing/document.ts';
import { decideCreate, decideSendInvitations, decideSign, decideView } from '../../domain/signing/decide.ts';
import { verifyChain } from '../../domain/signing/audit.ts';
import { encodeTemplate, type FaceEmbeddingEnrolled } from '../../domain/face-matching/events.ts';
import type { FingerprintTemplateEnrolled } from '../../domain/fingerprint/events.ts';
import { eventStoreContract } from './event-store.contract.ts';

const root = mkdtempSync(join(tmpdir(), 'sello-sealing-'));
let n = 0;

function open(options: { strict?: boolean; classification?: Record<string, EventClassification>; masters?: () => MasterKeys } = {}) {
  const dir = join(root, `d${n++}`);
  const master = randomBytes(32);
  const masters = options.masters ?? (() => ({ current: master, previous: [] }));
  const keys = new DataKeys(new SqliteKeyStore(join(dir, 'keys.sqlite')), masters);
  const store = new SealingEventStore(new SqliteEventStore(join(dir, 'events.sqlite'), 20), keys, options);
  const raw = () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
  return { dir, store, keys, raw };
}

// Every type the contract uses is sealed, every field with it (unclassified fields of a sealed type are personal).
const sealEverything = new Proxy({} as Record<string, EventClassification>, {
  get: (): EventClassification => ({ context: 'test', fields: {}, subject: (e) => `subject:t:${e.streamName}` }),
});
eventStoreContract('sqlite behind the privacy layer (every event sealed)', () => open({ classification: sealEverything }).store);

const template = () => {
  const v = new Float32Array(512).map(() => Math.random() - 0.5);
  const norm = Math.hypot(...v);
  return encodeTemplate(v.map((x) => x / norm));
};

const faceEnrolled = (subject: string, id: string, tpl: string, marker: string): FaceEmbeddingEnrolled => ({
  type: 'FaceEmbeddingEnrolled',
  data: {
    embedding_id: id,
    tenant_id: 'ten_1',
    subject_id: subject,
    template_f32le_b64: tpl,
    template_version: 'v1',
    quality_score: 0.9,
    liveness_score: null,
    liveness_computed: false,
    enrollment_source: 'kiosk',
    metadata: { name: marker },
    created_at: '2026-01-01T00:00:00.000Z',
  },
});

const fingerEnrolled = (subject: string, id: string, minutiae: string, marker: string): FingerprintTemplateEnrolled => ({
  type: 'FingerprintTemplateEnrolled',
  data: {
    template_id: id,
    tenant_id: 'ten_1',
    subject_id: subject,
    finger_position: 2,
    width: 300,
    height: 400,
    minutiae_b64: minutiae,
    minutiae_count: 30,
    field_b64: randomBytes(64).toString('base64'),
    quality_score: 70,
    template_version: 'mcc-1',
    source: 'image',
    metadata: { note: marker },
    created_at: '2026-01-01T00:00:00.000Z',
  },
});

describe('sealing event store: face and fingerprint templates', () => {
  it('stores no template byte or marker in clear, reads events back as appended, keeps ids and times in clear', async () => {
    const { store, raw } = open({ strict: true });
    const tpl = template();
    const minutiae = randomBytes(180).toString('base64');
    const face = faceEnrolled('subj-A', 'emb_1', tpl, 'MARKER-face-7f3a');
    const finger = fingerEnrolled('subj-A', 'fpt_1', minutiae, 'MARKER-finger-7f3a');
    await store.append('face-embedding-emb_1', [{ ...face, metadata: { tenant_id: 'ten_1' } }]);
    await store.append('fingerprint-template-fpt_1', [{ ...finger, metadata: { tenant_id: 'ten_1' } }]);

    const bytes = raw();
    const tplBytes = Buffer.from(tpl, 'base64');
    for (const needle of [tpl.slice(0, 40), 'MARKER-face-7f3a', 'MARKER-finger-7f3a', minutiae.slice(0, 40), 'kiosk']) expect(bytes.includes(needle), needle).toBe(false);
    expect(bytes.includes(tplBytes.subarray(0, 64))).toBe(false);

    const stored = await store.inner.readStream('face-embedding-emb_1');
    const d = stored.events[0]!.data as Record<string, unknown>;
    expect(Object.keys(d).sort()).toEqual([SEALED_FIELD, 'created_at', 'embedding_id', 'liveness_computed', 'liveness_score', 'quality_score', 'subject_id', 'template_version', 'tenant_id'].sort());

    expect((await store.readStream('face-embedding-emb_1')).events[0]!.data).toEqual(face.data);
    const all = await store.readAll();
    expect(all.map((e) => e.data)).toEqual([face.data, finger.data]);
    expect(all.every((e) => e.metadata.erased_at === undefined)).toBe(true);
  });

  it('destroying the subject key erases every template of that subject (documented replacement values), not the others', async () => {
    const { store, keys } = open({ strict: true });
    await store.append('face-embedding-e1', [faceEnrolled('subj-A', 'e1', template(), 'a1')]);
    await store.append('face-embedding-e2', [faceEnrolled('subj-A', 'e2', template(), 'a2')]);
    await store.append('fingerprint-template-f1', [fingerEnrolled('subj-A', 'f1', randomBytes(60).toString('base64'), 'a3')]);
    const otherFace = faceEnrolled('subj-B', 'e3', template(), 'b1');
    await store.append('face-embedding-e3', [otherFace]);

    const seen: unknown[] = [];
    const sub = store.subscribeToAll({ fromPosition: 0, onEvents: (evs) => void seen.push(...evs) });
    await sub.caughtUp();

    expect(await keys.destroy('subject:ten_1:subj-A', '2026-05-01T00:00:00.000Z')).toHaveLength(1);
    const all = await store.readAll();
    const [e1, e2, f1, e3] = all;
    for (const e of [e1!, e2!]) {
      expect(e.data).toMatchObject({ template_f32le_b64: '', enrollment_source: null, metadata: {}, subject_id: 'subj-A', quality_score: 0.9 });
      expect(e.metadata.erased_at).toBe('2026-05-01T00:00:00.000Z');
    }
    expect(f1!.data).toMatchObject({ minutiae_b64: '', metadata: {}, minutiae_count: 30 });
    expect('field_b64' in (f1!.data as object)).toBe(false);
    expect(e3!.data).toEqual(otherFace.data);
    expect(e3!.metadata.erased_at).toBeUndefined();

    // A subscription reads the erased form too, and a new enrolment of the subject gets a new key.
    await store.append('face-embedding-e4', [faceEnrolled('subj-A', 'e4', template(), 'a4')]);
    await expect.poll(() => seen.length).toBe(5);
    expect((seen[4] as { data: { metadata: unknown } }).data.metadata).toEqual({ name: 'a4' });
    expect((seen[0] as { metadata: { erased_at?: string } }).metadata.erased_at).toBe(undefined); // delivered before the erasure
    await sub.stop();
    await store.close();
  });

  it('another process (its own key cache) reads erased events once the key is destroyed', async () => {
    const a = open({ strict: true });
    const master = randomBytes(32);
    const dir = join(root, `shared${n++}`);
    const mk = () => {
      const keys = new DataKeys(new SqliteKeyStore(join(dir, 'keys.sqlite')), () => ({ current: master, previous: [] }));
      return new SealingEventStore(new SqliteEventStore(join(dir, 'events.sqlite'), 20), keys);
    };
    const p1 = mk();
    const p2 = mk();
    await p1.append('face-embedding-x', [faceEnrolled('subj-X', 'x', template(), 'x')]);
    expect((await p2.readAll())[0]!.metadata.erased_at).toBeUndefined();
    await p1.keys.destroy('subject:ten_1:subj-X', '2026-05-01T00:00:00.000Z');
    // p2 cached the key for at most CACHE_MS; a process starting now (a replay) reads the erased form.
    const p3 = mk();
    expect((await p3.readAll())[0]!.metadata.erased_at).toBe('2026-05-01T00:00:00.000Z');
    await Promise.all([p1.close(), p2.close(), p3.close(), a.store.close()]);
  });

  it('a sealed value moved to another stream does not open (bound to type, stream and key)', async () => {
    const { store } = open();
    await store.append('face-embedding-m1', [faceEnrolled('subj-M', 'm1', template(), 'm')]);
    const stored = (await store.inner.readStream('face-embedding-m1')).events[0]!;
    await store.inner.append('face-embedding-m2', [{ type: stored.type, data: stored.data, metadata: stored.metadata }]);
    await expect(store.readStream('face-embedding-m2')).rejects.toThrow();
    await store.close();
  });

  it('master-key rotation: keys re-wrapped under the new master, data readable with it alone', async () => {
    const oldMaster = randomBytes(32);
    const newMaster = randomBytes(32);
    let masters: MasterKeys = { current: oldMaster, previous: [] };
    const { store, keys, dir } = open({ masters: () => masters });
    const face = faceEnrolled('subj-R', 'r1', template(), 'r');
    await store.append('face-embedding-r1', [face]);
    masters = { current: newMaster, previous: [oldMaster] };
    expect(await keys.rewrapAll(2)).toBe(1);
    expect(await keys.rewrapAll(2)).toBe(0);
    const live = await keys.store.listLive('', 10);
    expect(live.map((k) => k.masterId)).toEqual([masterKeyId(newMaster)]);
    await store.close();
    // A fresh process holding only the new master key.
    const again = new SealingEventStore(
      new SqliteEventStore(join(dir, 'events.sqlite'), 20),
      new DataKeys(new SqliteKeyStore(join(dir, 'keys.sqlite')), () => ({ current: newMaster, previous: [] })),
    );
    expect((await again.readAll())[0]!.data).toEqual(face.data);
    await again.close();
    // ... and one holding only the old one cannot unwrap.
    const stale = new SealingEventStore(
      new SqliteEventStore(join(dir, 'events.sqlite'), 20),
      new DataKeys(new SqliteKeyStore(join(dir, 'keys.sqlite')), () => ({ current: oldMaster, previous: [] })),
    );
    await expect(stale.readAll()).rejects.toThrow(/master key/);
    await stale.close();
  });

  it('strict mode refuses an unclassified event type or field; otherwise an unknown field of a sealed type is sealed', async () => {
    const strict = open({ strict: true });
    await expect(strict.store.append('s-1', [{ type: 'SomethingNew', data: { a: 1 } }])).rejects.toBeInstanceOf(UnclassifiedEventError);
    const extra = faceEnrolled('subj-S', 's1', template(), 's');
    await expect(strict.store.append('face-embedding-s1', [{ type: extra.type, data: { ...extra.data, nickname: 'Pepe' } }])).rejects.toThrow(/nickname/);
    expect(await strict.store.headPosition()).toBe(0);
    const lax = open();
    await lax.store.append('face-embedding-s1', [{ type: extra.type, data: { ...extra.data, nickname: 'Pepe-7f3a' } }]);
    await lax.store.append('s-1', [{ type: 'SomethingNew', data: { a: 1 } }]);
    expect(lax.raw().includes('Pepe-7f3a')).toBe(false);
    expect((await lax.store.readAll()).map((e) => e.data)).toEqual([{ ...extra.data, nickname: 'Pepe-7f3a' }, { a: 1 }]);
    await Promise.all([strict.store.close(), lax.store.close()]);
  });
});

describe('signing events: sealed per document, audit chain over commitments (docs/privacy.md "Signing audit chain")', () => {
  const T0 = Date.parse('2026-01-10T10:00:00Z');
  const docId = 'doc_bbbbbbbbbbbbbbbbbbbbbbbb';
  const stream = documentStream(docId);
  const meta = { tenant_id: 'ten_1' };
  const append = async (store: SealingEventStore, events: SigningEvent[], expected: number | 'no_stream') => {
    await store.append(stream, events.map((e) => ({ ...e, metadata: meta })), { expectedRevision: expected });
  };

  it('keeps the chain verifiable, with the same head, before and after the document key is destroyed', async () => {
    const { store, keys, raw } = open({ strict: true });
    const created = decideCreate(
      {
        documentId: docId, tenantId: 'ten_1', user: 'api_key:k1', title: 'Contrato', description: null, message: 'hola', notifyEmail: null,
        expiryDate: '2026-02-01T23:59:59.999Z', file: { name: 'a.pdf', size: 10, pages: 1 }, pageSizes: [{ width: 600, height: 800 }],
        documentSha256: 'a'.repeat(64), blobKey: 'k', linkBase: 'http://x', locale: { language: 'es', timeZone: 'America/Mexico_City' },
        signers: [{ id: 's1', email: 'ana.sealmark@example.com', name: 'Ana sealmark', role: 'r', order: 1, fields: [] }], tags: new Map(),
      },
      T0,
    );
    await append(store, created, 'no_stream');
    const read = async () => (await store.readStream(stream)).events;
    // A batch chained by the domain over the plain form: re-linked to the stored form.
    const sent = decideSendInvitations(foldDocument(await read()), { reminderDays: 3, customMessage: 'firma sealmark', user: 'u' }, T0 + 1);
    const view = decideView(foldDocument([...(await read()), ...sent]), { signerId: 's1', ip: '198.51.100.9', userAgent: 'UA sealmark' }, T0 + 2);
    await append(store, [...sent, ...view], 0);
    const s = foldDocument(await read());
    await append(store, decideSign(s, { signerId: 's1', ip: '198.51.100.9', userAgent: 'UA sealmark', signatureId: 'sig_1', method: 'typed', typedName: 'Ana sealmark', imageBlob: null, imageSha256: null, consent: true }, T0 + 3), s.revision);

    expect(raw().includes('sealmark')).toBe(false);
    expect(raw().includes('198.51.100.9')).toBe(false);
    const before = await read();
    expect(before.map((e) => e.type)).toEqual(['signing.document_created', 'signing.invitations_sent', 'signing.document_viewed', 'signing.document_signed', 'signing.document_completed']);
    expect((before[0]!.data as any).signers[0].name).toBe('Ana sealmark');
    const v1 = verifyChain(before as never);
    expect(v1.ok).toBe(true);
    expect(foldDocument(before).last_hash).toBe(v1.head); // the domain's head is the verifier's

    await keys.destroy(subjectKeyId('signing', 'ten_1', docId), '2026-01-11T00:00:00.000Z');
    const after = await read();
    expect(JSON.stringify(after.map((e) => e.data))).not.toContain('sealmark');
    expect((after[0]!.data as any).signers).toEqual([]);
    expect((after[3]!.data as any).ip_address).toBe('');
    expect(after[0]!.metadata.erased_at).toBe('2026-01-11T00:00:00.000Z');
    expect(verifyChain(after as never)).toMatchObject({ ok: true, head: v1.head, entries: 5 });
    // The domain continues the chain of an erased document.
    const erased = foldDocument(after);
    expect(erased.last_hash).toBe(v1.head);
    await store.close();
  });

  it('keeps the old rule for events without commitments (documents written before sealing)', () => {
    const created = decideCreate(
      {
        documentId: docId, tenantId: 'ten_1', user: 'u', title: 'T', description: null, message: null, notifyEmail: null,
        expiryDate: '2026-02-01T23:59:59.999Z', file: { name: 'a.pdf', size: 10, pages: 1 }, pageSizes: [{ width: 600, height: 800 }],
        documentSha256: 'c'.repeat(64), blobKey: 'k', linkBase: 'http://x', locale: { language: 'es', timeZone: 'America/Mexico_City' },
        signers: [{ id: 's1', email: 'a@example.com', name: 'A', role: 'r', order: 1, fields: [] }], tags: new Map(),
      },
      T0,
    );
    const sent = decideSendInvitations(foldDocument(created), { reminderDays: 3, customMessage: null, user: 'u' }, T0 + 1);
    expect(sent[0]!.data.prev_hash).toBe(createHash('sha256').update(canonicalJson({ event: 'document_created', data: created[0]!.data })).digest('hex'));
    expect(verifyChain([...created, ...sent] as never).ok).toBe(true);
  });
});
