/**
 * The service's own keys, from configuration or generated once into DATA_DIR (see `key-file.ts`).
 * Each key is loaded on first use and kept for the life of the process. Keys are never logged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSecretKey } from '../../domain/webhooks/secret-box.ts';
import { loadOrCreateKeyFile } from './key-file.ts';
import { loadSigningIdentity, type SigningIdentity } from './signing-identity.ts';
import type { Config } from '../shared/adapter.ts';
import type { MasterKeys } from '../privacy/data-keys.ts';

export interface Secrets {
  /**
   * HMAC-SHA-256 key of registry lookup fingerprints: `REGISTRY_FINGERPRINT_KEY` (UTF-8, at least 16
   * bytes) or `DATA_DIR/registry-fingerprint.key`.
   * @throws Error when the configured key is shorter than 16 bytes.
   */
  registryFingerprintKey(): Buffer;
  /**
   * AES-256-GCM key sealing webhook endpoint secrets: `WEBHOOK_SECRET_KEY` (64 hex chars or base64 of 32
   * bytes) or `DATA_DIR/webhook-secret.key`. Losing the file makes stored secrets unreadable: back it up
   * with the data directory, or set the variable.
   */
  webhookSecretKey(): Buffer;
  /**
   * The PAdES signing identity: `SIGNING_P12_PATH` (+ `SIGNING_P12_PASSWORD`), or a self-issued CA and
   * certificate in `DATA_DIR/signing-identity.p12`, its key encrypted with `DATA_DIR/signing-identity.key`
   * (see `signing-identity.ts`). Generated on first use (about a second: two RSA keys).
   */
  signingIdentity(): SigningIdentity;
  /** HMAC-SHA-256 key of signing preview URLs: `DATA_DIR/signing-link.key`. */
  signingLinkKey(): Buffer;
  /**
   * AES-256-GCM key sealing the API keys a deployment issues until the admin has seen them once
   * (`DEPLOYMENT_SECRET_KEY`, 64 hex chars or base64 of 32 bytes, or `DATA_DIR/deployment-secret.key`).
   */
  deploymentSecretKey(): Buffer;
  /** The crypto-shredding master keys, read now (see {@link loadPrivacyMasterKeys}). */
  privacyMasterKeys(): MasterKeys;
}

/** File of the generated privacy master key under DATA_DIR. */
export const PRIVACY_MASTER_KEY_FILE = 'privacy-master.key';
/** While `npm run cli -- privacy rotate-master-key` runs (file mode): the key being rotated out. */
export const PRIVACY_MASTER_KEY_PREVIOUS_FILE = 'privacy-master.key.previous';

const parseMaster = (text: string, what: string): Buffer => {
  try {
    return parseSecretKey(text);
  } catch {
    throw new Error(`${what} must be 32 bytes (64 hex characters or base64)`);
  }
};

/**
 * The master keys wrapping crypto-shredding data keys (docs/privacy.md): `PRIVACY_MASTER_KEY` (+ the
 * comma-separated `PRIVACY_MASTER_KEY_PREVIOUS` during a rotation), or, when unset, `DATA_DIR/privacy-master.key`
 * (generated on first use, mode 0600) and `DATA_DIR/privacy-master.key.previous` while a rotation by the
 * CLI is under way. Read anew on every call (a process meeting a key wrapped by an unknown master calls it
 * again). Losing the master key makes every sealed field unreadable: back it up apart from the log.
 * @throws Error when a configured or stored key is not 32 bytes.
 */
export function loadPrivacyMasterKeys(config: Config): MasterKeys {
  if (config.PRIVACY_MASTER_KEY) {
    const previous = (config.PRIVACY_MASTER_KEY_PREVIOUS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    return { current: parseMaster(config.PRIVACY_MASTER_KEY, 'PRIVACY_MASTER_KEY'), previous: previous.map((p) => parseMaster(p, 'PRIVACY_MASTER_KEY_PREVIOUS')) };
  }
  const dir = resolve(config.DATA_DIR);
  const current = loadOrCreateKeyFile(join(dir, PRIVACY_MASTER_KEY_FILE), { parse: (text, file) => parseMaster(text, file) });
  let previous: Buffer[] = [];
  try {
    previous = [parseMaster(readFileSync(join(dir, PRIVACY_MASTER_KEY_PREVIOUS_FILE), 'utf8'), PRIVACY_MASTER_KEY_PREVIOUS_FILE)];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { current, previous };
}

/**
 * Why a process must not start with this configuration's privacy master key, or `null` when it may.
 * A shared event store (`EVENT_STORE` other than `sqlite`: several processes append to one log) needs
 * `PRIVACY_MASTER_KEY` on every process: unset, each process would generate its own master key under its
 * own `DATA_DIR`, wrap the data keys it creates with it, and fail to open the events the others sealed
 * (docs/operations.md "Privacy master key"). `options.allowExistingFile` (the CLI, run beside one process's
 * data directory): a `DATA_DIR/privacy-master.key` that already exists is accepted; a new one is never made.
 * Pure apart from that file's existence check; the message names the variable and how to set it.
 */
export function sharedMasterKeyProblem(config: Config, options: { allowExistingFile?: boolean } = {}): string | null {
  if (config.EVENT_STORE === 'sqlite' || config.PRIVACY_MASTER_KEY) return null;
  if (options.allowExistingFile && existsSync(join(resolve(config.DATA_DIR), PRIVACY_MASTER_KEY_FILE))) return null;
  return (
    `EVENT_STORE=${config.EVENT_STORE} is shared by every process of the deployment, so PRIVACY_MASTER_KEY must be set, ` +
    'the same on every API and CLI process (64 hex characters or base64 of 32 bytes, e.g. `openssl rand -hex 32`). ' +
    `Without it each process would generate its own key in DATA_DIR/${PRIVACY_MASTER_KEY_FILE} and could not open the personal data the others sealed. ` +
    `A deployment that ran with the generated file: put that file's content in PRIVACY_MASTER_KEY (docs/operations.md).`
  );
}

/**
 * The registry-lookup fingerprint key (see {@link Secrets.registryFingerprintKey}), read or created now.
 * @throws Error when the configured key is shorter than 16 bytes or the key file holds no usable key.
 */
export function loadFingerprintKey(config: Config): Buffer {
  if (config.REGISTRY_FINGERPRINT_KEY) {
    // A short key could be guessed, and then fingerprints brute-forced back to names and dates.
    if (Buffer.byteLength(config.REGISTRY_FINGERPRINT_KEY) < 16) throw new Error('REGISTRY_FINGERPRINT_KEY must be at least 16 bytes');
    return Buffer.from(config.REGISTRY_FINGERPRINT_KEY, 'utf8');
  }
  return loadOrCreateKeyFile(join(resolve(config.DATA_DIR), 'registry-fingerprint.key'));
}

/** The keys of `config`, each read or created on first use. */
export function createSecrets(config: Config): Secrets {
  const dir = resolve(config.DATA_DIR);
  const once = <T>(load: () => T): (() => T) => {
    let value: T | undefined;
    return () => (value ??= load());
  };
  return {
    registryFingerprintKey: once(() => loadFingerprintKey(config)),
    webhookSecretKey: once(() =>
      config.WEBHOOK_SECRET_KEY ? parseSecretKey(config.WEBHOOK_SECRET_KEY) : loadOrCreateKeyFile(join(dir, 'webhook-secret.key'), { parse: (text) => parseSecretKey(text) }),
    ),
    signingIdentity: once(() => loadSigningIdentity(config)),
    signingLinkKey: once(() => loadOrCreateKeyFile(join(dir, 'signing-link.key'))),
    deploymentSecretKey: once(() =>
      config.DEPLOYMENT_SECRET_KEY
        ? parseSecretKey(config.DEPLOYMENT_SECRET_KEY)
        : loadOrCreateKeyFile(join(dir, 'deployment-secret.key'), { parse: (text) => parseSecretKey(text) }),
    ),
    privacyMasterKeys: () => loadPrivacyMasterKeys(config),
  };
}
