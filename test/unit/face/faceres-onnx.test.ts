/**
 * faceres on onnxruntime-node (`models/face/faceres-onnx.ts`) against the same model on tfjs-backend-wasm,
 * and the converter's pieces: exact float16 decoding, the protobuf writer, refusal of unsupported ops.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { fileHandler, humanModelDir, loadTf } from '../../../models/face/tf.ts';
import { FACERES_OUTPUT, loadFaceres } from '../../../models/face/faceres-onnx.ts';
import { float16ToFloat32, readTfjsGraph, tfjsGraphToOnnx } from '../../../models/face/tfjs-to-onnx.ts';
import { encodeOnnxModel } from '../../../models/face/onnx-proto.ts';

/** A deterministic face-like input: smooth gradients and texture, RGB 0-255. */
function syntheticCrop(seed: number): Float32Array {
  const x = new Float32Array(224 * 224 * 3);
  for (let i = 0; i < x.length; i++) x[i] = 127.5 + 127.5 * Math.sin(i * 0.0137 * seed + (i % 3)) * Math.cos(i * 0.00071);
  return x;
}

describe('faceres on onnxruntime-node', () => {
  it('gives the 1024-d embedding of the tfjs graph model within float32 rounding', async () => {
    const tf = await loadTf();
    const graph = await tf.loadGraphModel(fileHandler(path.join(humanModelDir(), 'faceres.json')));
    const session = await loadFaceres();
    for (const seed of [1, 2]) {
      const crop = syntheticCrop(seed);
      const input = tf.tensor4d(crop, [1, 224, 224, 3], 'float32');
      const out = graph.execute(input, FACERES_OUTPUT);
      const want = Float32Array.from(await out.data());
      tf.dispose([input, out]);
      const got = await session.embed(crop);
      expect(got).toHaveLength(1024);
      let maxRef = 0, maxDiff = 0;
      for (let i = 0; i < 1024; i++) { maxRef = Math.max(maxRef, Math.abs(want[i]!)); maxDiff = Math.max(maxDiff, Math.abs(got[i]! - want[i]!)); }
      expect(maxRef).toBeGreaterThan(0.01); // a real activation, not all zeros
      expect(maxDiff).toBeLessThan(1e-4 * maxRef);
    }
    graph.dispose();
    await expect(session.embed(new Float32Array(10))).rejects.toThrow(/150528 expected/);
  }, 60_000);

  it('decodes float16 weights exactly as tfjs does', async () => {
    const tf = await loadTf();
    const p = path.join(humanModelDir(), 'faceres.json');
    const { consts } = readTfjsGraph(p);
    const art = await fileHandler(p).load() as { weightSpecs: unknown[]; weightData: ArrayBuffer };
    const ref = tf.io.decodeWeights(art.weightData, art.weightSpecs) as Record<string, { dataSync: () => Float32Array; dispose: () => void }>;
    let compared = 0;
    for (const [name, t] of Object.entries(ref)) {
      expect(Array.from(consts.get(name)!.data)).toEqual(Array.from(t.dataSync()));
      t.dispose();
      compared++;
    }
    expect(compared).toBe(128);
    expect(float16ToFloat32(0x3c00)).toBe(1);
    expect(float16ToFloat32(0xc000)).toBe(-2);
    expect(float16ToFloat32(0x0001)).toBe(2 ** -24);
    expect(float16ToFloat32(0x7c00)).toBe(Infinity);
    expect(float16ToFloat32(0x7e00)).toBeNaN();
  }, 60_000);

  it('writes a model onnxruntime reads (one Clip per ReLU6, age and gender heads pruned)', async () => {
    const m = tfjsGraphToOnnx(path.join(humanModelDir(), 'faceres.json'), { name: 'input_1', shape: [1, 224, 224, 3] }, [FACERES_OUTPUT]);
    const ops = m.nodes.map((n) => n.op);
    expect(ops.filter((o) => o === 'Clip')).toHaveLength(27);
    expect(ops).not.toContain('Relu');
    expect(ops).not.toContain('Gemm');
    const s = await ort.InferenceSession.create(encodeOnnxModel(m));
    expect(s.inputNames).toEqual(['input_1']);
    expect(s.outputNames).toEqual([FACERES_OUTPUT]);
  }, 60_000);

  it('refuses a graph with an op it does not convert', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tfjs-onnx-'));
    writeFileSync(path.join(dir, 'w.bin'), Buffer.alloc(0));
    writeFileSync(path.join(dir, 'm.json'), JSON.stringify({
      modelTopology: { node: [{ name: 'x', op: 'Placeholder' }, { name: 'y', op: 'Erf', input: ['x'] }] },
      weightsManifest: [{ paths: ['w.bin'], weights: [] }],
    }));
    expect(() => tfjsGraphToOnnx(path.join(dir, 'm.json'), { name: 'x', shape: [1, 2] }, ['y'])).toThrow(/op Erf/);
  });
});
