import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A real S3-protocol server (s3rver, from npm) on loopback, storing under a fresh temp directory. */
export interface TestS3Server {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

/** Starts s3rver (credentials `S3RVER` / `S3RVER`, its fixed test account). */
export async function startS3Server(): Promise<TestS3Server> {
  const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;
  const directory = mkdtempSync(path.join(tmpdir(), 'sello-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
