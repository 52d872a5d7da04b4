/**
 * Body of a recognition-helper thread (see `RecHelper` in `./rec-helper.ts`): one ONNX Runtime session of
 * the model file given in `workerData` (`{ modelPath, intraOpThreads, mrzColumns, fused }`, one intra-op thread by default; loaded
 * with its greedy outputs and MRZ columns, `rec-model.ts`), running the input tensors its parent posts, one at a time in arrival order.
 *
 * Messages in: `{ id, input: Float32Array, dims: number[], fetches: string[] }` (the model's single float
 * input `x`, the outputs wanted). Answers: `{ id: 0 }` once the session is loaded; `{ id, outputs: [{ data, dims }] }`
 * (the outputs in the order asked, their buffers transferred) or `{ id, error }` (the message of the error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadRecModel } from './rec-model.ts';

const { modelPath, intraOpThreads, mrzColumns, fused } = workerData as { modelPath: string; intraOpThreads: number; mrzColumns?: number[]; fused?: boolean };
const ort = await import('onnxruntime-node');
const session = await ort.InferenceSession.create(loadRecModel(modelPath, mrzColumns, fused), { intraOpNumThreads: intraOpThreads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
const port = parentPort!;
port.on('message', (m: { id: number; input: Float32Array; dims: number[]; fetches: string[] }) => {
  void (async () => {
    try {
      const out = await session.run({ x: new ort.Tensor('float32', m.input, m.dims) }, m.fetches);
      const outputs = m.fetches.map((f) => ({ data: out[f]!.data as Float32Array | BigInt64Array, dims: out[f]!.dims }));
      port.postMessage({ id: m.id, outputs }, outputs.map((o) => o.data.buffer as ArrayBuffer));
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message });
    }
  })();
});
port.postMessage({ id: 0 });
