/**
 * The S3 adapter against a real MinIO (github.com/minio/minio, built by `npm run engines`): the port's
 * contract unchanged, and what only a real server checks: SigV4 signatures (a wrong secret key is
 * refused), presigned URLs (usable until they expire, refused after or when altered), the key prefix as
 * the server stores it, and a store that stops, freezes or restarts under the adapter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidBlobKeyError } from '../../infra/ports/blob-store.ts';
import { S3BlobStore, S3BlobStoreError, type S3BlobStoreOptions } from '../../infra/blob-store/s3/s3-blob-store.ts';
import { blobStoreContract } from './blob-store.contract.ts';
import { minioBinary, minioReachable, objectNames, startOwnMinio, testS3, TestBuckets, type OwnMinio } from '../helpers/minio.ts';
import { serverMissing } from '../helpers/servers.ts';

const up = await minioReachable('S3 blob store on MinIO');
const s3 = testS3();
const buckets = new TestBuckets('sello-blob');
afterAll(async () => {
  if (up) await buckets.removeAll();
});

/** A store on a bucket of its own (created by the adapter on first use, removed after the file). */
const open = (options: Partial<S3BlobStoreOptions> = {}) =>
  new S3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region, bucket: buckets.name(), ...options });

if (up) {
  blobStoreContract('S3 (minio client) on MinIO', () => open());
  blobStoreContract('S3 on MinIO with a key prefix', () => open({ prefix: 'deploy-a' }));
}

describe.runIf(up)('S3 blob store on MinIO: presigned downloads', () => {
  it('hands out a URL that plain fetch downloads without credentials, for that object only', async () => {
    const store = open();
    const bytes = new Uint8Array(5000).map((_, i) => i % 251);
    await store.put('tenant-a/exports/usage.csv', bytes, { contentType: 'text/csv' });
    await store.put('tenant-a/exports/other.csv', new Uint8Array([9]));
    const url = await store.presignedGetUrl('tenant-a/exports/usage.csv', 60);
    const r = await fetch(url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv');
    expect(Buffer.compare(Buffer.from(await r.arrayBuffer()), Buffer.from(bytes))).toBe(0);
    const q = new URL(url).searchParams;
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-Expires')).toBe('60');
    expect(q.get('X-Amz-Credential')).toMatch(new RegExp(`^${s3.accessKey}/\\d{8}/${s3.region}/s3/aws4_request$`));
    // The bucket is private: the same object without the signature is refused.
    const bare = new URL(url);
    bare.search = '';
    expect((await fetch(bare)).status).toBe(403);
    await expect(store.presignedGetUrl('tenant-a/exports/usage.csv', 0)).rejects.toBeInstanceOf(RangeError);
    await expect(store.presignedGetUrl('tenant-a/exports/usage.csv', 7 * 86_400 + 1)).rejects.toBeInstanceOf(RangeError);
  });

  it('a tampered URL is refused: another object, a longer lifetime, a changed signature', async () => {
    const store = open();
    await store.put('t/a.pdf', new Uint8Array([1, 2, 3]), { contentType: 'application/pdf' });
    await store.put('t/b.pdf', new Uint8Array([4, 5, 6]), { contentType: 'application/pdf' });
    const url = new URL(await store.presignedGetUrl('t/a.pdf', 60));
    const refused = async (u: URL, code: string) => {
      const r = await fetch(u);
      expect(r.status, u.toString()).toBe(403);
      expect(await r.text()).toContain(`<Code>${code}</Code>`);
    };
    const other = new URL(url);
    other.pathname = other.pathname.replace(/a\.pdf$/, 'b.pdf');
    await refused(other, 'SignatureDoesNotMatch');
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    await refused(longer, 'SignatureDoesNotMatch');
    const forged = new URL(url);
    const sig = forged.searchParams.get('X-Amz-Signature')!;
    forged.searchParams.set('X-Amz-Signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    await refused(forged, 'SignatureDoesNotMatch');
    expect((await fetch(url)).status).toBe(200); // the untouched URL still works
  });

  it('works until it expires and is refused after (2 s lifetime)', async () => {
    const store = open();
    await store.put('t/short.bin', new Uint8Array([7, 7, 7]));
    const url = await store.presignedGetUrl('t/short.bin', 2);
    const signedAt = Date.parse(new URL(url).searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect([...Buffer.from(await first.arrayBuffer())]).toEqual([7, 7, 7]);
    // X-Amz-Date has whole seconds: past signedAt + 2 s (+1 s of rounding) the server must refuse it.
    await new Promise((r) => setTimeout(r, Math.max(0, signedAt + 3_100 - Date.now())));
    const late = await fetch(url);
    expect(late.status).toBe(403);
    const body = await late.text();
    expect(body).toContain('<Code>AccessDenied</Code>');
    expect(body).toContain('Request has expired');
  });
});

describe.runIf(up)('S3 blob store on MinIO: credentials, key prefix, sharing', () => {
  it('a request signed with a wrong secret key is refused by MinIO; every operation fails with a clear error and writes nothing', async () => {
    const bucket = buckets.name();
    const good = open({ bucket });
    await good.put('a/existing', new Uint8Array([1]));
    const bad = open({ bucket, secretKey: `${s3.secretKey}-wrong` });
    async function* lines() {
      yield 'x\n';
      yield 'y\n';
    }
    const operations: Array<[string, () => Promise<unknown>]> = [
      ['get', () => bad.get('a/existing')],
      ['getStream', () => bad.getStream('a/existing')],
      ['put', () => bad.put('a/new', new Uint8Array([2]))],
      ['putStream', () => bad.putStream('a/streamed', lines())],
      ['delete', () => bad.delete('a/existing')],
      ['list', () => bad.list('a/')],
      ['presignedGetUrl', () => bad.presignedGetUrl('a/existing', 60)],
    ];
    for (const [name, run] of operations) {
      const error = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(S3BlobStoreError);
      const e = error as S3BlobStoreError;
      // The server's own reason (a HEAD's refusal has no body and read as a bare AccessDenied), and what to fix.
      expect(e.code, name).toBe('SignatureDoesNotMatch');
      expect(e.message, name).toContain(s3.endpoint);
      expect(e.message, name).toContain(bucket);
      expect(e.message, name).toContain('S3_SECRET_KEY');
      expect(e.message, name).not.toContain(s3.secretKey);
    }
    expect(await good.list('a/')).toEqual(['a/existing']);
    // An access key the server does not know is named as such.
    const stranger = open({ bucket, accessKey: 'nobody-here' });
    await expect(stranger.get('a/existing')).rejects.toMatchObject({ name: 'S3BlobStoreError', code: 'InvalidAccessKeyId' });
  });

  it('the key prefix is a key path: a leading slash is dropped (MinIO stores no leading slash, so listings were empty), an invalid one is refused at once', async () => {
    const bucket = buckets.name();
    const store = open({ bucket, prefix: '/deploy-b/' });
    await store.put('signing/t1/doc/original.pdf', new Uint8Array([1]));
    await store.put('signing/t1/doc/final.pdf', new Uint8Array([2]));
    // The signing service deletes a document's files by listing them: an empty listing kept them forever.
    expect(await store.list('signing/t1/doc/')).toEqual(['signing/t1/doc/final.pdf', 'signing/t1/doc/original.pdf']);
    expect(await objectNames(bucket)).toEqual(['deploy-b/signing/t1/doc/final.pdf', 'deploy-b/signing/t1/doc/original.pdf']);
    // Another deployment's prefix on the same bucket sees none of them.
    expect(await open({ bucket, prefix: 'deploy-c' }).list('')).toEqual([]);
    for (const prefix of ['a//b', '../up', 'a/./b', 'sp ace']) expect(() => open({ prefix }), prefix).toThrow(InvalidBlobKeyError);
  });

  it("two processes (two clients) on one bucket see each other's blobs", async () => {
    const bucket = buckets.name();
    const a = open({ bucket });
    const b = open({ bucket });
    await Promise.all([a.put('t/1', new Uint8Array([1])), b.put('t/2', new Uint8Array([2]))]);
    expect(await a.list('t/')).toEqual(['t/1', 't/2']);
    expect([...(await b.get('t/1'))!]).toEqual([1]);
  });
});

// A MinIO of this file's own, to stop, freeze and restart under a store.
const bin = up ? minioBinary() : null;
if (up && !bin) serverMissing('S3 blob store with a stopped MinIO', 'the MinIO binary is not built (MINIO_BIN unset; npm run engines -- install minio)');

describe.runIf(up && bin)('S3 blob store on MinIO: the server stops, freezes, restarts', () => {
  let own: OwnMinio | undefined;
  afterAll(async () => own?.close());

  it('a frozen server fails a request after the timeout instead of holding it forever; a stopped one fails at once; both recover', async () => {
    own = await startOwnMinio(bin!);
    const store = new S3BlobStore({ endpoint: own.endpoint, accessKey: own.accessKey, secretKey: own.secretKey, bucket: 'frozen', timeoutMs: 1500 });
    await store.put('k/v', new Uint8Array([1, 2, 3]));

    await own.freeze();
    let started = Date.now();
    await expect(store.get('k/v')).rejects.toMatchObject({ name: 'S3BlobStoreError', code: 'ETIMEDOUT' });
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(store.put('k/w', new Uint8Array([4]))).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    own.thaw();
    expect([...(await store.get('k/v'))!]).toEqual([1, 2, 3]);

    await own.stop();
    started = Date.now();
    const down = await store.get('k/v').then(
      () => null,
      (e: unknown) => e as S3BlobStoreError,
    );
    expect(down).toBeInstanceOf(S3BlobStoreError);
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(down!.code);
    expect(down!.message).toContain(own.endpoint);
    expect(Date.now() - started).toBeLessThan(5_000);

    await own.restart();
    expect([...(await store.get('k/v'))!]).toEqual([1, 2, 3]);
    await store.put('k/after', new Uint8Array([5]));
    // (k/w may exist: the thawed server can still complete the PUT its client gave up on.)
    expect(await store.list('k/')).toEqual(expect.arrayContaining(['k/after', 'k/v']));
  }, 120_000);
});
