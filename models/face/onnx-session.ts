/**
 * One way to open the face nets' onnxruntime-node sessions (faceres, face-api's recognition net, tiny
 * detector body, 68-point landmark net): one intra-op and one inter-op thread, since the worker pool
 * gives the parallelism (docs/face.md, CPU per image), all graph optimisations, sequential execution.
 */
import type { InferenceSession } from 'onnxruntime-node';

type Ort = typeof import('onnxruntime-node');

/** Session options shared by the face nets (see the file's docstring). */
export const FACE_SESSION_OPTIONS: InferenceSession.SessionOptions = {
  intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
};

/**
 * Loads onnxruntime-node and creates a session of the ONNX model `bytes` (a serialised ModelProto).
 * @returns the runtime module (for `ort.Tensor`) and the session. @throws onnxruntime's error on a model it refuses.
 */
export async function openFaceSession(bytes: Uint8Array): Promise<{ ort: Ort; session: InferenceSession }> {
  const ort = await import('onnxruntime-node');
  return { ort, session: await ort.InferenceSession.create(bytes, FACE_SESSION_OPTIONS) };
}
