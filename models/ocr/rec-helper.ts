/**
 * A helper thread that runs the PaddleOCR recogniser beside the job's own thread, so that one page's line
 * crops are recognised on two cores (`PaddleOcr.recognizeMatrices` hands it every other batch). ONNX
 * Runtime's `run` is synchronous in `onnxruntime-node` (it blocks the calling thread), so a second
 * session in a second thread is the way to use a second core; unlike a second intra-op thread, it splits
 * the work by crop, which costs no extra CPU (docs/ocr.md "OCR time, second pass"). Each crop is computed
 * by the same model with the same single-threaded session options on either thread, so the results do not
 * depend on which thread ran it.
 *
 * The thread is `unref`'d (it never keeps a process alive) and lives as long as its parent thread.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/** One output tensor of a run: float32 posteriors or probabilities, or int64 class indices. */
export type HelperOutput = { data: Float32Array | BigInt64Array; dims: number[] };
type Answer = { id: number; outputs?: HelperOutput[]; error?: string };

/** One recogniser session in its own thread. Create with {@link RecHelper.start}. */
export class RecHelper {
  private readonly pending = new Map<number, { resolve: (a: HelperOutput[]) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private failed: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: Answer) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined || !m.outputs) p.reject(new Error(m.error ?? 'recognition helper answered without data'));
      else p.resolve(m.outputs);
    });
    const fail = (e: Error) => {
      this.failed = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`recognition helper exited (${code})`)));
  }

  /**
   * Starts the thread and resolves once its session is loaded.
   * @param modelPath the recogniser's `.onnx` file (loaded with its greedy outputs, `rec-model.ts`)
   * @param intraOpThreads ONNX Runtime intra-op threads of the helper's session (1: the parallelism is the helper)
   * @param mrzColumns the classes of the model's MRZ output (`rec-model.ts`; the caller's own session must have the same)
   * @param fused load the model with its element-wise operators fused (`onnx-fuse.ts`; as the caller's own session)
   * @throws Error when the thread or the session fails to start
   */
  static async start(modelPath: string, intraOpThreads = 1, mrzColumns?: readonly number[], fused = false): Promise<RecHelper> {
    const worker = new Worker(fileURLToPath(new URL('./rec-helper-entry.mjs', import.meta.url)), { workerData: { modelPath, intraOpThreads, mrzColumns, fused } });
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: Answer) => {
        if (m.id !== 0) return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`recognition helper exited (${code}) before loading`)));
    });
    worker.removeAllListeners('error');
    worker.removeAllListeners('exit');
    return new RecHelper(worker);
  }

  /** True until the thread failed or exited (then the caller recognises everything itself). */
  get usable(): boolean {
    return this.failed === null;
  }

  /**
   * Runs the recogniser on one input tensor (NCHW float32, N crops of height 48); the input's buffer is
   * transferred (unusable by the caller afterwards).
   * @param fetches the outputs wanted, by name (`rec-model.ts`: the posteriors, the greedy class and probability, the MRZ columns)
   * @returns those outputs, in the order asked, with their dims
   * @throws Error when the session fails or the thread is gone
   */
  run(input: Float32Array, dims: number[], fetches: readonly string[]): Promise<HelperOutput[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, input, dims, fetches }, [input.buffer as ArrayBuffer]);
    });
  }

  /** Stops the thread. */
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
