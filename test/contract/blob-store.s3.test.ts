import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../infra/blob-store/s3/s3-blob-store.ts';
import { blobStoreContract } from './blob-store.contract.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => s3?.close());

let n = 0;
const open = (prefix?: string) =>
  new S3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: `sello-test-${process.pid}-${n++}`, prefix });

blobStoreContract('S3 (minio client against s3rver)', () => open());
blobStoreContract('S3 with a key prefix', () => open('deploy-a'));

describe('S3 blob store: presigned downloads and sharing', () => {
  it('hands out a presigned URL that downloads the bytes without credentials, and only that object', async () => {
    const store = open();
    const bytes = new Uint8Array(5000).map((_, i) => i % 251);
    await store.put('tenant-a/exports/usage.csv', bytes, { contentType: 'text/csv' });
    const url = await store.presignedGetUrl('tenant-a/exports/usage.csv', 60);
    const r = await fetch(url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv');
    expect(Buffer.compare(Buffer.from(await r.arrayBuffer()), Buffer.from(bytes))).toBe(0);
    // A SigV4 query signature with the requested lifetime. (s3rver serves anonymous GETs and does not check
    // query signatures, so their enforcement is S3's, not shown here.)
    const q = new URL(url).searchParams;
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-Expires')).toBe('60');
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(q.get('X-Amz-Credential')).toMatch(/^S3RVER\//);
    await expect(store.presignedGetUrl('tenant-a/exports/usage.csv', 0)).rejects.toBeInstanceOf(RangeError);
  });

  it('two processes (two clients) on one bucket see each other\'s blobs', async () => {
    const bucket = `sello-shared-${process.pid}`;
    const a = new S3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket });
    const b = new S3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket });
    await Promise.all([a.put('t/1', new Uint8Array([1])), b.put('t/2', new Uint8Array([2]))]);
    expect(await a.list('t/')).toEqual(['t/1', 't/2']);
    expect([...(await b.get('t/1'))!]).toEqual([1]);
  });

  it('wrong credentials fail loudly, not as a missing blob', async () => {
    const bad = new S3BlobStore({ endpoint: s3.endpoint, accessKey: 'nobody', secretKey: 'wrong', bucket: 'x-bucket' });
    await expect(bad.get('a/b')).rejects.toThrow();
  });
});
