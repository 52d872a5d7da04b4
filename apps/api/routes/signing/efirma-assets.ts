/**
 * The two scripts of the e.firma signing form (issue 29), read once at start-up and served by
 * `efirma-routes.ts` under content-addressed paths (the SHA-256 prefix of the bytes is in the name), so
 * they are cached for a year (`immutable`) and a new release is a new URL:
 * - node-forge's browser bundle (`node_modules/node-forge/dist/forge.min.js`, the project's dependency):
 *   PBES2/DES-EDE3-CBC decryption of the SAT's `.key`, which WebCrypto lacks, and X.509 parsing;
 * - `assets/efirma-sign.js`: the page's own script (decrypt, compare with the certificate, prepare, sign
 *   with WebCrypto, complete). Both run under the page's nonce; neither needs `eval`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A served script: its path under `/sign/assets/` and its bytes. */
export interface EfirmaAsset {
  path: string;
  body: Buffer;
}

function asset(name: string, ext: string, body: Buffer): EfirmaAsset {
  return { path: `/sign/assets/${name}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}${ext}`, body };
}

const require = createRequire(import.meta.url);
const forgeFile = require.resolve('node-forge/dist/forge.min.js');

/** node-forge's browser bundle (window.forge). */
export const FORGE_ASSET = asset('forge', '.min.js', readFileSync(forgeFile));
/** The e.firma form's script. */
export const EFIRMA_SIGN_ASSET = asset('efirma-sign', '.js', readFileSync(fileURLToPath(new URL('./assets/efirma-sign.js', import.meta.url))));
/** In the order the page loads them (forge first). */
export const EFIRMA_ASSETS: readonly EfirmaAsset[] = [FORGE_ASSET, EFIRMA_SIGN_ASSET];
