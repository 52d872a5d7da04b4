/**
 * Body of a recognition-helper thread (see `RecHelper` in `./rec-helper.ts`): one ONNX Runtime session of
 * the model file given in `workerData` (`{ modelPath, intraOpThreads }`, one intra-op thread by default),
 * running the input tensors its parent posts, one at a time in arrival order.
 *
 * Messages in: `{ id, input: Float32Array, dims: number[] }` (the model's single float input `x`).
 * Answers: `{ id: 0 }` once the session is loaded; `{ id, data: Float32Array, dims }` (the first output,
 * its buffer transferred) or `{ id, error }` (the message of the error).
 */
import { parentPort, workerData } from 'node:worker_threads';

const { modelPath, intraOpThreads } = workerData as { modelPath: string; intraOpThreads: number };
const ort = await import('onnxruntime-node');
const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: intraOpThreads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
const port = parentPort!;
port.on('message', (m: { id: number; input: Float32Array; dims: number[] }) => {
  void (async () => {
    try {
      const out = await session.run({ x: new ort.Tensor('float32', m.input, m.dims) });
      const t = out[session.outputNames[0]!]!;
      const data = t.data as Float32Array;
      port.postMessage({ id: m.id, data, dims: t.dims }, [data.buffer as ArrayBuffer]);
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message });
    }
  })();
});
port.postMessage({ id: 0 });
