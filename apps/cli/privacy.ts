/**
 * `npm run cli -- privacy rotate-master-key`: re-wraps every crypto-shredding data key under a new master
 * key (docs/privacy.md, "Master key rotation"). The sealed events are not touched: only the key store's
 * rows change, so a rotation takes milliseconds per thousand keys whatever the size of the log.
 *
 * - `PRIVACY_MASTER_KEY` set: the operator supplies the keys. Set the new key as `PRIVACY_MASTER_KEY` and
 *   the old one in `PRIVACY_MASTER_KEY_PREVIOUS` on every process, run this command, then remove
 *   `PRIVACY_MASTER_KEY_PREVIOUS`.
 * - unset (embedded, `DATA_DIR/privacy-master.key`): the command makes the new key itself. The old key is
 *   kept as `privacy-master.key.previous` while keys are re-wrapped (a running server still unwraps with
 *   it, and picks the new key up for the keys it creates), then overwritten and removed. An interrupted
 *   rotation is finished by running the command again.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync, closeSync, fsyncSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../api/config.ts';
import { createKeyStore } from '../../infra/key-store/index.ts';
import { DataKeys, masterKeyId } from '../../infra/privacy/data-keys.ts';
import { PRIVACY_MASTER_KEY_FILE, PRIVACY_MASTER_KEY_PREVIOUS_FILE, loadPrivacyMasterKeys } from '../../infra/secrets/index.ts';

/** What the rotation did: the new master key's public id and how many data keys were re-wrapped. */
export interface RotationReport {
  master_key_id: string;
  rewrapped: number;
  /** `env` (PRIVACY_MASTER_KEY) or `file` (DATA_DIR/privacy-master.key). */
  source: 'env' | 'file';
}

function writeKeyFile(file: string, key: Buffer, flag: 'wx' | 'w'): void {
  const fd = openSync(file, flag, 0o600);
  try {
    writeSync(fd, `${key.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Overwrites a key file with zeros before unlinking it (the old master key must not linger on disk). */
function shred(file: string): void {
  const size = readFileSync(file).length;
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(size));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  unlinkSync(file);
}

/**
 * Rotates the master key (see the module comment).
 * @throws Error when a data key is wrapped by a master key that is not configured (nothing is lost: the
 *   command can be run again once it is).
 */
export async function rotateMasterKey(config: Config): Promise<RotationReport> {
  const keys = new DataKeys(createKeyStore(config), () => loadPrivacyMasterKeys(config));
  try {
    if (config.PRIVACY_MASTER_KEY) {
      const rewrapped = await keys.rewrapAll();
      return { master_key_id: masterKeyId(loadPrivacyMasterKeys(config).current), rewrapped, source: 'env' };
    }
    const dir = resolve(config.DATA_DIR);
    const currentFile = join(dir, PRIVACY_MASTER_KEY_FILE);
    const previousFile = join(dir, PRIVACY_MASTER_KEY_PREVIOUS_FILE);
    if (!existsSync(previousFile)) {
      const old = loadPrivacyMasterKeys(config).current; // creates the file on a fresh DATA_DIR
      writeKeyFile(previousFile, old, 'wx');
      const tmp = `${currentFile}.tmp`;
      writeKeyFile(tmp, randomBytes(32), 'w');
      renameSync(tmp, currentFile);
    }
    // Twice: a key a running server created with the old master just before the switch is caught by the second pass.
    let rewrapped = await keys.rewrapAll();
    rewrapped += await keys.rewrapAll();
    shred(previousFile);
    return { master_key_id: masterKeyId(loadPrivacyMasterKeys(config).current), rewrapped, source: 'file' };
  } finally {
    await keys.close();
  }
}
