/**
 * The Kafka job queue's pure parts: which offsets a worker may commit when jobs finish out of order, what
 * goes by claim check, and which messages a worker refuses to act on.
 */
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { commitValue, PartitionProgress, resumeOffset } from '../../infra/job-queue/kafka/offsets.ts';
import { MalformedMessageError, claimExpired, decodeJob, decodeReply, encodeJob, holdsBinary, kafkaNames, pack, unpack } from '../../infra/job-queue/kafka/wire.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';

describe('PartitionProgress: commit only what is answered, with everything before it', () => {
  it('holds the watermark at the oldest unanswered job while later ones finish first', () => {
    const p = new PartitionProgress();
    for (const o of [10n, 11n, 12n]) expect(p.take(o)).toBe(true);
    expect(p.finish(12n)).toBeNull(); // 10 and 11 still running
    expect(p.finish(11n)).toBeNull();
    expect(p.running).toBe(1);
    expect(p.finish(10n)).toBe(12n); // all three answered
    expect(p.done).toBe(12n);
  });

  it('does not wait for offsets it never took (gaps, or a range another member ran)', () => {
    const p = new PartitionProgress();
    p.take(5n);
    p.take(9n);
    expect(p.finish(5n)).toBe(5n);
    expect(p.finish(9n)).toBe(9n);
  });

  it('refuses a re-delivery of a job taken, running or answered and not yet past the watermark', () => {
    const p = new PartitionProgress();
    p.take(1n);
    p.take(2n);
    p.finish(2n); // answered, but 1 still runs: 2 is not committed yet
    expect(p.take(1n)).toBe(false);
    expect(p.take(2n)).toBe(false);
    p.finish(1n);
    expect(p.take(1n)).toBe(false); // at or below the watermark
    expect(p.take(3n)).toBe(true);
  });

  it('commits in the convention @platformatic/kafka 1.22.0 resumes from (committed + 1)', () => {
    expect(resumeOffset(commitValue(41n))).toBe(42n);
    expect(resumeOffset(-1n)).toBeNull();
  });
});

describe('claim check and message checks', () => {
  const names = kafkaNames('sello-x');
  const memory = (): BlobStore & { data: Map<string, Uint8Array> } => {
    const data = new Map<string, Uint8Array>();
    return {
      data,
      put: async (k, d) => void data.set(k, d),
      get: async (k) => (data.has(k) ? Buffer.from(data.get(k)!) : null),
      delete: async (k) => data.delete(k),
      list: async (prefix) => [...data.keys()].filter((k) => k.startsWith(prefix)).sort(),
      putStream: async () => ({ bytes: 0 }),
      getStream: async () => null,
    };
  };

  it('finds binary data anywhere in a value', () => {
    expect(holdsBinary({ a: [1, 'x', { b: null }] })).toBe(false);
    expect(holdsBinary({ a: [{ b: new Uint8Array(1) }] })).toBe(true);
    expect(holdsBinary(new Map([['k', new Float32Array(2)]]))).toBe(true);
    expect(holdsBinary(new Set([Buffer.alloc(0)]))).toBe(true);
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    expect(holdsBinary(cyclic)).toBe(false);
  });

  it('keeps small plain inputs inline and puts binary or large ones in the blob store', async () => {
    const blobs = memory();
    const inline = await pack(blobs, `${names.claimsPrefix}1-a`, { x: 1 });
    expect('payload' in inline).toBe(true);
    expect(blobs.data.size).toBe(0);
    const image = await pack(blobs, `${names.claimsPrefix}1-b`, { bytes: new Uint8Array([1, 2]) });
    expect(image).toEqual({ claim: { key: `${names.claimsPrefix}1-b`, bytes: expect.any(Number) } });
    expect(await unpack(blobs, image)).toEqual({ bytes: new Uint8Array([1, 2]) });
    const large = await pack(blobs, `${names.claimsPrefix}1-c`, { text: 'x'.repeat(300 * 1024) });
    expect('claim' in large).toBe(true);
    await blobs.delete(`${names.claimsPrefix}1-b`);
    expect(await unpack(blobs, image)).toBeNull(); // the job ended: its claim is gone
  });

  it('sweeps only this deployment\'s claims whose deadline is past the grace', () => {
    expect(claimExpired(names, `${names.claimsPrefix}1000-id`, 70_000, 60_000)).toBe(true);
    expect(claimExpired(names, `${names.claimsPrefix}1000-id.reply-ab`, 70_000, 60_000)).toBe(true);
    expect(claimExpired(names, `${names.claimsPrefix}50000-id`, 70_000, 60_000)).toBe(false);
    expect(claimExpired(names, 'job-claims/other/1000-id', 70_000, 60_000)).toBe(false);
    expect(claimExpired(names, 'tenant/x/1000-id', 70_000, 60_000)).toBe(false);
  });

  it('refuses messages that would make a worker write to another topic or read another blob', () => {
    const ok = { id: 'j1', type: 'system.health', deadline: Date.now() + 1000, replyTo: `${names.repliesPrefix}abc`, payload: serialize({}) };
    expect(decodeJob(names, encodeJob(ok)).id).toBe('j1');
    expect(() => decodeJob(names, encodeJob({ ...ok, replyTo: 'billing.events' }))).toThrow(MalformedMessageError);
    expect(() => decodeJob(names, encodeJob({ ...ok, payload: undefined, claim: { key: 'tenant-a/ids/passport.jpg', bytes: 1 } }))).toThrow(/claim key outside/);
    expect(() => decodeJob(names, encodeJob({ ...ok, payload: undefined, claim: { key: `${names.claimsPrefix}../../tenant-a/x`, bytes: 1 } }))).toThrow(/claim key outside/);
    expect(() => decodeJob(names, encodeJob({ ...ok, payload: undefined }))).toThrow(/exactly one/);
    expect(() => decodeJob(names, Buffer.from('{"id":"x"}'))).toThrow(MalformedMessageError);
    expect(() => decodeJob(names, serialize({ v: 99, ...ok }))).toThrow(/version/);
    expect(() => decodeReply(names, null)).toThrow(/empty/);
    expect(() => kafkaNames('..')).toThrow(/prefix/);
  });
});
