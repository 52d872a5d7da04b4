import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join, relative, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { InvalidBlobKeyError, type BlobStore } from '../../ports/blob-store.ts';

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Embedded blob store: files under a root directory; writes go to a temp file then rename (atomic). */
export class LocalDirBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    if (!KEY.test(key) || key.split('/').some((s) => s === '.' || s === '..')) throw new InvalidBlobKeyError(`invalid blob key ${JSON.stringify(key)}`);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const file = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async putStream(key: string, source: AsyncIterable<Uint8Array | string>): Promise<{ bytes: number }> {
    const file = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    let bytes = 0;
    const counted = async function* () {
      for await (const chunk of source) {
        const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        bytes += b.length;
        yield b;
      }
    };
    try {
      // pipeline applies backpressure: the source is pulled only as fast as the disk takes it.
      await pipeline(Readable.from(counted()), createWriteStream(tmp));
      await rename(tmp, file);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return { bytes };
  }

  async getStream(key: string): Promise<{ stream: NodeJS.ReadableStream & AsyncIterable<Buffer>; bytes: number } | null> {
    const file = this.path(key);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const { size } = await handle.stat();
    // The stream owns the handle (closed at end or on error): a file deleted meanwhile is still read whole.
    return { stream: handle.createReadStream({ autoClose: true }) as unknown as NodeJS.ReadableStream & AsyncIterable<Buffer>, bytes: size };
  }

  async delete(key: string): Promise<boolean> {
    const file = this.path(key);
    try {
      await rm(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (!e.name.endsWith('.tmp')) out.push(relative(this.root, full).split(sep).join('/'));
      }
    };
    await walk(this.root);
    return out.filter((k) => k.startsWith(prefix)).sort();
  }
}
