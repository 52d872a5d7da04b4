/**
 * The service's own keys, from configuration or generated once into DATA_DIR (see `key-file.ts`).
 * Each key is loaded on first use and kept for the life of the process. Keys are never logged.
 */
import { join, resolve } from 'node:path';
import { parseSecretKey } from '../../domain/webhooks/secret-box.ts';
import { loadOrCreateKeyFile } from './key-file.ts';
import { loadSigningIdentity, type SigningIdentity } from './signing-identity.ts';
import type { Config } from '../shared/adapter.ts';

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
  };
}
