/**
 * `npm run cli -- privacy rotate-master-key` as its own process (docs/privacy.md, "Master key rotation"):
 * on the embedded profile (key file in DATA_DIR) and with PRIVACY_MASTER_KEY / _PREVIOUS. Sealed events
 * stay readable under the new master key alone, and no longer under the old one.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../apps/api/config.ts';
import { createEventStore, createRawEventStore } from '../../../infra/event-store/index.ts';
import { createKeyStore } from '../../../infra/key-store/index.ts';
import { DataKeys, masterKeyId } from '../../../infra/privacy/data-keys.ts';
import { SealingEventStore } from '../../../infra/privacy/sealing-event-store.ts';
import { encodeTemplate } from '../../../domain/face-matching/events.ts';

const run = promisify(execFile);

async function cli(env: Record<string, string>, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  return JSON.parse(stdout.trim());
}

const enrol = (subject: string, id: string) => ({
  type: 'FaceEmbeddingEnrolled',
  data: {
    embedding_id: id,
    tenant_id: 'ten_rot',
    subject_id: subject,
    template_f32le_b64: encodeTemplate(new Float32Array(512).fill(1 / Math.sqrt(512))),
    template_version: 'v1',
    quality_score: 0.8,
    liveness_score: null,
    liveness_computed: false,
    enrollment_source: null,
    metadata: { who: `MARKER-${id}` },
    created_at: '2026-01-01T00:00:00.000Z',
  },
  metadata: { tenant_id: 'ten_rot' },
});

async function seed(env: Record<string, string>): Promise<unknown[]> {
  const store = createEventStore(loadConfig({ ...process.env, ...env }));
  await store.append('face-embedding-r1', [enrol('s1', 'r1')]);
  await store.append('face-embedding-r2', [enrol('s2', 'r2')]);
  const data = (await store.readAll()).map((e) => e.data);
  await store.close();
  return data;
}

/** Reads the log with exactly these master keys. */
async function readWith(env: Record<string, string>, current: Buffer): Promise<unknown[]> {
  const config = loadConfig({ ...process.env, ...env });
  const store = new SealingEventStore(createRawEventStore(config), new DataKeys(createKeyStore(config), () => ({ current, previous: [] })));
  try {
    return (await store.readAll()).map((e) => e.data);
  } finally {
    await store.close();
  }
}

describe('cli privacy rotate-master-key', () => {
  it('embedded: makes a new key file, re-wraps every data key, removes the old key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sello-rotate-'));
    const env = { DATA_DIR: dataDir, EVENT_STORE: 'sqlite' };
    const before = await seed(env);
    const keyFile = join(dataDir, 'privacy-master.key');
    const oldKey = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');

    const report = await cli(env, 'privacy', 'rotate-master-key');
    const newKey = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
    expect(report).toEqual({ master_key_id: masterKeyId(newKey), rewrapped: 2, source: 'file' });
    expect(newKey.equals(oldKey)).toBe(false);
    expect(existsSync(join(dataDir, 'privacy-master.key.previous'))).toBe(false);

    expect(await readWith(env, newKey)).toEqual(before);
    await expect(readWith(env, oldKey)).rejects.toThrow(/master key/);
    // What the server opens (createEventStore with the key file) reads them too; the same subjects keep their two keys.
    expect(await seed(env)).toEqual([...before, ...before]);
    expect((await cli(env, 'privacy', 'rotate-master-key')).rewrapped).toBe(2);
  });

  it('PRIVACY_MASTER_KEY: re-wraps the keys of PRIVACY_MASTER_KEY_PREVIOUS under the configured key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sello-rotate-env-'));
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = await seed({ DATA_DIR: dataDir, PRIVACY_MASTER_KEY: oldKey.toString('hex') });
    const env = { DATA_DIR: dataDir, PRIVACY_MASTER_KEY: newKey.toString('hex'), PRIVACY_MASTER_KEY_PREVIOUS: oldKey.toString('base64') };
    expect(await cli(env, 'privacy', 'rotate-master-key')).toEqual({ master_key_id: masterKeyId(newKey), rewrapped: 2, source: 'env' });
    expect(await readWith(env, newKey)).toEqual(before);
    await expect(readWith(env, oldKey)).rejects.toThrow(/master key/);
    expect(existsSync(join(dataDir, 'privacy-master.key'))).toBe(false);
  });
});
