import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SECRET_PREFIX } from './signature.ts';

/**
 * Endpoint secrets at rest. The HMAC needs the secret itself, so it cannot be stored as a one-way hash: it
 * is encrypted with AES-256-GCM (NIST SP 800-38D; 96-bit random IV, 128-bit tag) under the 32-byte key from
 * `WEBHOOK_SECRET_KEY`, with the endpoint id as additional authenticated data so a ciphertext cannot be
 * moved to another endpoint. Stored form: `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`.
 */
export interface SecretBox {
  seal(plaintext: string, aad: string): string;
  /** Raises when the ciphertext, tag, AAD or key do not match. */
  open(sealed: string, aad: string): string;
}

/** Parses a key given as 64 hex characters or as base64/base64url of 32 bytes; raises otherwise. */
export function parseSecretKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes (64 hex characters or base64)');
  return key;
}

/** An AES-256-GCM {@link SecretBox} under `key` (32 bytes). */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  const k = Buffer.from(key);
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', k, iv);
      c.setAAD(Buffer.from(aad, 'utf8'));
      const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed, aad) {
      const [v, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('sealed secret: unknown format');
      const d = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
      d.setAAD(Buffer.from(aad, 'utf8'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    },
  };
}

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (256 bits, Standard Webhooks format). */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}
