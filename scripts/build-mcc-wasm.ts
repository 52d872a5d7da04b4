/**
 * Compiles domain/fingerprint/mcc-wasm.wat (the MCC local-similarity kernel) with wabt's wat2wasm
 * (npm `wabt`, a devDependency) and writes the binary, base64, to domain/fingerprint/mcc-wasm-binary.ts.
 * Run after editing the .wat: `npm run build:mcc-wasm`. test/unit/fingerprint/mcc-wasm.test.ts checks
 * that the committed binary is what this script gives.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** The package name, in a variable so that typechecking does not need the devDependency installed. */
export const WABT = 'wabt';

/** The part of wabt's API used here (its index.d.ts has the whole). */
interface Wabt {
  parseWat(filename: string, text: string): { validate(): void; toBinary(o: object): { buffer: Uint8Array }; destroy(): void };
}

/** The .wat compiled to a wasm binary by wabt (features: wabt's defaults, which include SIMD). */
export async function compileMccWat(): Promise<Uint8Array> {
  const wabt = await ((await import(WABT)) as { default: () => Promise<Wabt> }).default();
  const src = readFileSync(new URL('../domain/fingerprint/mcc-wasm.wat', import.meta.url), 'utf8');
  const mod = wabt.parseWat('mcc-wasm.wat', src);
  try {
    mod.validate();
    return Uint8Array.from(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = await compileMccWat();
  const b64 = Buffer.from(bin).toString('base64');
  const lines = b64.match(/.{1,100}/g)!.map((l) => `  '${l}'`).join(' +\n');
  writeFileSync(new URL('../domain/fingerprint/mcc-wasm-binary.ts', import.meta.url),
    `/** mcc-wasm.wat compiled by wabt (npm run build:mcc-wasm; generated, do not edit): ${bin.length} bytes, base64. */\nexport const MCC_WASM_BASE64 =\n${lines};\n`);
  console.log(`mcc-wasm-binary.ts: ${bin.length} bytes`);
}
