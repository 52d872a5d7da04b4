/**
 * The event store's privacy layer (crypto-shredding, docs/privacy.md): an {@link EventStore} over any
 * adapter that seals personal fields on append and opens them on read, driven by the classification map
 * (`domain/privacy/classification.ts`), so domain code, projections and workflows see plain events.
 *
 * On append, an event whose type has a data subject has its personal fields moved into one field,
 * `$sealed`: `v1:<key ref>:<base64 of IV (12) + AES-256-GCM ciphertext of the fields' JSON + tag (16)>`,
 * under the subject's data key, with the event type, stream name and key reference as additional
 * authenticated data (a sealed value cannot be moved to another event). Every other field stays in clear.
 *
 * For an entry of a hash chain (the type's `chainHash`: signing events) the layer also keeps in clear
 * `$commitments` (field -> SHA-256 of a random salt and the value; the salts are sealed with the values)
 * and re-links the entries of one append to the stored form of their predecessor, so the signing audit
 * chain verifies before and after erasure (docs/privacy.md, "Signing audit chain").
 *
 * On read, a sealed event whose key is live reads as it was appended (a chained one whose opened values
 * do not match their commitments carries `metadata.commitment_mismatch`, the fields' names). Once the key is destroyed the event
 * reads with each personal field set to its documented replacement value (`erased` in the map; absent
 * when that is `undefined`) and `metadata.erased_at` (ISO time of the destruction; `'unknown'` when the
 * key store has no record of the key, e.g. a key store restored from a backup older than the log).
 *
 * `strict` (`SELLO_PRIVACY_STRICT=1`, the test suite's setting): an event type or a data field missing
 * from the map is refused with {@link UnclassifiedEventError}. Otherwise an unknown type is stored as
 * given, and an unknown field of a sealed type is sealed (treated as personal).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { COMMITMENTS, EVENT_CLASSIFICATION, isPersonal, type EventClassification } from '../../domain/privacy/classification.ts';
import { canonicalJson } from '../../domain/signing/document.ts';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadStreamResult,
  RecordedEvent,
  SubscribeToAllOptions,
  Subscription,
} from '../ports/event-store.ts';
import type { DataKeys, KeyState } from './data-keys.ts';

/** The field holding an event's sealed personal fields. */
export const SEALED_FIELD = '$sealed';
/** Inside the sealed JSON of a chained event: the salt (base64, 16 bytes) of each field's commitment. */
const SALTS = '$salts';

/**
 * Commitment to one personal field of a chained event: SHA-256 (hex) of `salt || canonicalJson(value)`.
 * The salt is sealed with the value, so once the key is destroyed the digest reveals nothing (a guessed
 * name or address cannot be tested against it).
 */
export function commitment(salt: Buffer, value: unknown): string {
  return createHash('sha256').update(salt).update(canonicalJson(value), 'utf8').digest('hex');
}

/** An appended event whose type or a data field is not in `domain/privacy/classification.ts` (strict mode). */
export class UnclassifiedEventError extends Error {
  override readonly name = 'UnclassifiedEventError';
  constructor(readonly eventType: string, readonly field: string | null) {
    super(
      field === null
        ? `event type ${eventType} is not classified: add it to domain/privacy/classification.ts and docs/privacy.md`
        : `field ${field} of event type ${eventType} is not classified personal / not personal in domain/privacy/classification.ts`,
    );
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const aad = (type: string, stream: string, keyRef: string): Buffer => Buffer.from(`sello-event\0${type}\0${stream}\0${keyRef}`, 'utf8');

/** Seals `fields` (JSON) under `key`. */
export function sealFields(key: Buffer, keyRef: string, type: string, stream: string, fields: Record<string, unknown>): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad(type, stream, keyRef));
  const ct = Buffer.concat([c.update(JSON.stringify(fields), 'utf8'), c.final()]);
  return `v1:${keyRef}:${Buffer.concat([iv, ct, c.getAuthTag()]).toString('base64')}`;
}

/** The key reference a sealed value names, or null when `sealed` is not one. */
export function sealedKeyRef(sealed: unknown): string | null {
  if (typeof sealed !== 'string' || !sealed.startsWith('v1:')) return null;
  const end = sealed.indexOf(':', 3);
  return end > 3 ? sealed.slice(3, end) : null;
}

/**
 * Opens {@link sealFields}' output.
 * @throws Error when the key is wrong or the value, type or stream was altered (GCM authentication).
 */
export function openFields(key: Buffer, type: string, stream: string, sealed: string): Record<string, unknown> {
  const keyRef = sealedKeyRef(sealed);
  if (!keyRef) throw new Error('not a sealed value');
  const bytes = Buffer.from(sealed.slice(4 + keyRef.length), 'base64');
  const d = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  d.setAAD(aad(type, stream, keyRef));
  d.setAuthTag(bytes.subarray(bytes.length - 16));
  const json = Buffer.concat([d.update(bytes.subarray(12, bytes.length - 16)), d.final()]).toString('utf8');
  return JSON.parse(json) as Record<string, unknown>;
}

export interface SealingOptions {
  /** Refuse unclassified types and fields (see the module comment). */
  strict?: boolean;
  /** Classification to apply (tests); default the service's map. */
  classification?: Readonly<Record<string, EventClassification>>;
}

export class SealingEventStore implements EventStore {
  private readonly strict: boolean;
  private readonly map: Readonly<Record<string, EventClassification>>;

  constructor(
    readonly inner: EventStore,
    readonly keys: DataKeys,
    options: SealingOptions = {},
  ) {
    this.strict = options.strict ?? false;
    this.map = options.classification ?? EVENT_CLASSIFICATION;
  }

  /** The event as it is stored: personal fields sealed when its type has a subject. */
  private async seal(streamName: string, e: NewEvent): Promise<NewEvent> {
    const c = this.map[e.type];
    if (!c) {
      if (this.strict) throw new UnclassifiedEventError(e.type, null);
      return e;
    }
    if (!isObject(e.data)) return e;
    const data = e.data;
    if (this.strict) for (const f of Object.keys(data)) if (!(f in c.fields)) throw new UnclassifiedEventError(e.type, f);
    if (!c.subject) return e;
    const subject = c.subject({ type: e.type, streamName, data, metadata: e.metadata ?? {} });
    if (!subject) return e;
    const clear: Record<string, unknown> = {};
    const secret: Record<string, unknown> = {};
    let any = false;
    for (const [f, v] of Object.entries(data)) {
      const cls = c.fields[f];
      if (cls === 'not_personal') clear[f] = v;
      else if (v !== undefined) {
        secret[f] = v;
        any = true;
      }
    }
    if (!any) return e;
    if (c.chainHash) {
      // Entries of a hash chain: the chain hashes a salted commitment of each sealed field (kept in clear).
      const salts: Record<string, string> = {};
      const commitments: Record<string, string> = {};
      for (const [f, v] of Object.entries(secret)) {
        const salt = randomBytes(16);
        salts[f] = salt.toString('base64');
        commitments[f] = commitment(salt, v);
      }
      secret[SALTS] = salts;
      clear[COMMITMENTS] = commitments;
    }
    const { keyRef, key } = await this.keys.keyFor(subject);
    clear[SEALED_FIELD] = sealFields(key, keyRef, e.type, streamName, secret);
    return { ...e, data: clear };
  }

  /** Events as the domain wrote them (or as erased). The same array when none is sealed. */
  private async open<E extends RecordedEvent>(events: E[]): Promise<E[]> {
    let refs: Set<string> | null = null;
    for (const e of events) {
      const ref = isObject(e.data) ? sealedKeyRef(e.data[SEALED_FIELD]) : null;
      if (ref) (refs ??= new Set()).add(ref);
    }
    if (!refs) return events;
    const states = await this.keys.resolve(refs);
    return events.map((e) => {
      const ref = isObject(e.data) ? sealedKeyRef(e.data[SEALED_FIELD]) : null;
      return ref ? this.openOne(e, states.get(ref)!) : e;
    });
  }

  private openOne<E extends RecordedEvent>(e: E, state: KeyState): E {
    const { [SEALED_FIELD]: sealed, ...clear } = e.data as Record<string, unknown>;
    if (state.status === 'live') {
      const { [SALTS]: salts, ...fields } = openFields(state.key, e.type, e.streamName, sealed as string);
      const commits = clear[COMMITMENTS];
      if (isObject(commits)) {
        // The values must be those the chain committed to (a value re-sealed by someone holding the key is not).
        const bad = Object.entries(commits).filter(([f, d]) => {
          const salt = isObject(salts) ? salts[f] : undefined;
          return typeof salt !== 'string' || commitment(Buffer.from(salt, 'base64'), fields[f]) !== d;
        });
        if (bad.length) return { ...e, data: { ...clear, ...fields }, metadata: { ...e.metadata, commitment_mismatch: bad.map(([f]) => f) } };
      }
      return { ...e, data: { ...clear, ...fields } };
    }
    const c = this.map[e.type];
    if (c) {
      // A chained entry reads with only its committed fields replaced (it hashes as before).
      const committed = isObject(clear[COMMITMENTS]) ? new Set(Object.keys(clear[COMMITMENTS])) : null;
      for (const [f, cls] of Object.entries(c.fields)) {
        if (isPersonal(cls) && cls.erased !== undefined && (!committed || committed.has(f))) clear[f] = structuredClone(cls.erased);
      }
    }
    return { ...e, data: clear, metadata: { ...e.metadata, erased_at: state.status === 'destroyed' ? state.destroyedAt : 'unknown' } };
  }

  async append(streamName: string, events: readonly NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    const sealed: NewEvent[] = [];
    // Chained entries appended together were linked by the domain to their predecessor's plain form;
    // each is re-linked to the stored (committed) form, the one every reader hashes.
    let given: string | null = null;
    let stored: string | null = null;
    for (const e of events) {
      const chainHash = this.map[e.type]?.chainHash;
      if (!chainHash || !isObject(e.data)) {
        sealed.push(await this.seal(streamName, e));
        given = stored = null;
        continue;
      }
      const linked: NewEvent = given !== null && e.data.prev_hash === given ? { ...e, data: { ...e.data, prev_hash: stored } } : e;
      const out = await this.seal(streamName, linked);
      given = chainHash(e.type, e.data);
      stored = chainHash(e.type, out.data as Record<string, unknown>);
      sealed.push(out);
    }
    return this.inner.append(streamName, sealed, options);
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<ReadStreamResult> {
    const r = await this.inner.readStream(streamName, options);
    return { ...r, events: await this.open(r.events) };
  }

  async readAll(options?: { fromPosition?: number; maxCount?: number; types?: readonly string[] }): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readAll(options));
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    return this.inner.subscribeToAll({ ...options, onEvents: async (events) => options.onEvents(await this.open(events)) });
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.keys.close();
  }
}
