import { describe, expect, it } from 'vitest';
import { InvalidBlobKeyError, type BlobStore } from '../../infra/ports/blob-store.ts';

/** Blob-store contract (local directory now; MinIO/S3 later, unchanged). */
export function blobStoreContract(name: string, factory: () => Promise<BlobStore> | BlobStore): void {
  describe(`blob store contract: ${name}`, () => {
    it('puts, gets, lists and deletes bytes exactly', async () => {
      const s = await factory();
      const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
      await s.put('tenant-a/docs/one.pdf', bytes, { contentType: 'application/pdf' });
      await s.put('tenant-a/docs/two.pdf', new Uint8Array([1]));
      await s.put('tenant-b/x.bin', new Uint8Array([2]));
      expect(Buffer.compare(Buffer.from(bytes), (await s.get('tenant-a/docs/one.pdf'))!)).toBe(0);
      expect(await s.list('tenant-a/')).toEqual(['tenant-a/docs/one.pdf', 'tenant-a/docs/two.pdf']);
      expect(await s.delete('tenant-a/docs/one.pdf')).toBe(true);
      expect(await s.delete('tenant-a/docs/one.pdf')).toBe(false);
      expect(await s.get('tenant-a/docs/one.pdf')).toBeNull();
    });

    it('streams a blob in and out without holding it, and leaves nothing when the source fails', async () => {
      const s = await factory();
      async function* chunks() {
        for (let i = 0; i < 2000; i++) yield i % 2 ? `line ${i}\n` : new TextEncoder().encode(`línea ${i}\n`);
      }
      const expected = Buffer.concat(Array.from({ length: 2000 }, (_, i) => Buffer.from(i % 2 ? `line ${i}\n` : `línea ${i}\n`, 'utf8')));
      const { bytes } = await s.putStream('tenant-s/exports/a.csv', chunks(), { contentType: 'text/csv' });
      expect(bytes).toBe(expected.length);
      const got = await s.getStream('tenant-s/exports/a.csv');
      expect(got!.bytes).toBe(expected.length);
      const parts: Buffer[] = [];
      for await (const c of got!.stream) parts.push(Buffer.from(c));
      expect(Buffer.compare(Buffer.concat(parts), expected)).toBe(0);
      expect(await s.getStream('tenant-s/exports/missing.csv')).toBeNull();
      async function* failing() {
        yield 'partial';
        throw new Error('source failed');
      }
      await expect(s.putStream('tenant-s/exports/b.csv', failing())).rejects.toThrow('source failed');
      expect(await s.get('tenant-s/exports/b.csv')).toBeNull();
      expect(await s.list('tenant-s/')).toEqual(['tenant-s/exports/a.csv']);
    });

    it('refuses keys that could escape the store', async () => {
      const s = await factory();
      for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '', 'a/./b']) {
        await expect(s.put(key, new Uint8Array([1]))).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
    });
  });
}
