/**
 * Where a verify request's time goes inside one inference worker: runs the `face.descriptor` stages
 * (decode, detection tensor, detection + 68 landmarks, 128-d net, faceres 1024-d) in this thread on the
 * two photos of `bench/face-verify.bench.ts`, and prints each stage's wall time and this process's CPU
 * time (ms, median of BENCH_N rounds) with the load average. Then, in the same run, before/after pairs
 * (alternating, CPU per call): the wasm `Concat` kernel against its replacement, and faceres and
 * face-api's 128-d net on tfjs-backend-wasm against onnxruntime-node (with the largest difference of
 * their outputs). For a function-level profile run it with
 * `node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/face-stages.bench.ts` and open the
 * `.cpuprofile` (Chrome DevTools) or sum self time per function.
 * Run: `npm run bench:face-stages`.
 */
import { loadavg } from 'node:os';
import { faceCrop } from '../test/api/face/fixtures.ts';
import { decodeImage } from '../models/face/image.ts';
import { FaceImage } from '../models/face/engine.ts';
import { describeFace } from '../models/face/jobs.ts';
import { fileHandler, humanModelDir, installFastConcat, loadTf, restoreOriginalConcat } from '../models/face/tf.ts';
import { loadFaceres } from '../models/face/faceres-onnx.ts';
import { alignFace } from '../models/face/align.ts';
import { createRecognitionSession } from '../models/face/recognition-onnx.ts';
import { useOnnxTinyDetector } from '../models/face/tiny-detector-onnx.ts';
import { useOnnxLandmarkNet } from '../models/face/landmark-onnx.ts';
import { faceApiModelDir, loadFaceApi } from '../models/face/tf.ts';
import path from 'node:path';

const N = Number(process.env.BENCH_N ?? 10);
const la = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const images = { image1: await faceCrop('a', 0.6), image2: await faceCrop('a', 0.35, { brightness: 1.1, flip: true }) };

/** This thread's CPU time in ms (user + system; the process has only this thread busy here). */
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function stage<T>(rows: Map<string, { wall: number[]; cpu: number[] }>, name: string, f: () => Promise<T>): Promise<T> {
  const w0 = performance.now(), c0 = cpu();
  const out = await f();
  const row = rows.get(name) ?? { wall: [], cpu: [] };
  row.wall.push(performance.now() - w0); row.cpu.push(cpu() - c0);
  rows.set(name, row);
  return out;
}

await describeFace(images.image1, 'image1'); // loads the models
await describeFace(images.image2, 'image2');
console.log(`face stages, in-process (one worker's work: nets on onnxruntime-node, one intra-op thread), n=${N} per image; load average ${la()}`);
for (const [name, bytes] of Object.entries(images)) {
  const rows = new Map<string, { wall: number[]; cpu: number[] }>();
  for (let i = 0; i < N; i++) {
    const img = await stage(rows, 'decode (sharp)', () => decodeImage(bytes, name));
    const fi = await stage(rows, 'detection tensor', () => FaceImage.from(img));
    try {
      const faces = await stage(rows, 'detect + 68 landmarks', () => fi.detect(0.5));
      await stage(rows, 'descriptor128 (face-api)', () => fi.descriptor128(faces[0]!));
      await stage(rows, 'descriptor1024 (faceres)', () => fi.descriptor1024(faces[0]!));
    } finally { fi.dispose(); }
    await stage(rows, 'whole face.descriptor job', () => describeFace(bytes, name));
  }
  console.log(`${name}:`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(28)} wall ${median(v.wall).toFixed(0).padStart(5)} ms  cpu ${median(v.cpu).toFixed(0).padStart(5)} ms`);
}
// before/after of the Concat replacement in this same run: whole jobs, alternating the two kernels
const tf = await loadTf();
const cmp = { original: [] as number[], replaced: [] as number[] };
for (let i = 0; i < N; i++) {
  for (const which of ['original', 'replaced'] as const) {
    if (which === 'original') restoreOriginalConcat(tf); else installFastConcat(tf);
    const c0 = cpu();
    await describeFace(images.image1, 'image1');
    await describeFace(images.image2, 'image2');
    cmp[which].push(cpu() - c0);
  }
}
console.log(`both images' face.descriptor jobs, CPU per pair (median of ${N}, alternating): wasm Concat kernel ${median(cmp.original).toFixed(0)} ms, replacement ${median(cmp.replaced).toFixed(0)} ms; load average ${la()}`);
// faceres on its two runtimes, same aligned crop, alternating: CPU per call and agreement
{
  const img = await decodeImage(images.image1, 'image1');
  const fi = await FaceImage.from(img);
  const face = (await fi.detect(0.5))[0]!;
  const crop = alignFace(img, face.landmarks5, 224);
  const crop150 = fi.faceCropData(face);
  const graph = await tf.loadGraphModel(fileHandler(path.join(humanModelDir(), 'faceres.json')));
  const ortSession = await loadFaceres();
  const wasmRun = async () => {
    const input = tf.tensor4d(crop, [1, 224, 224, 3], 'float32');
    const out = graph.execute(input, 'global_pooling/Mean');
    try { return Float32Array.from(await out.data()); } finally { tf.dispose([input, out]); }
  };
  const runs = { wasm: [] as number[], onnx: [] as number[] };
  let a: Float32Array = new Float32Array(), b: Float32Array = new Float32Array();
  for (let i = 0; i < N; i++) {
    let c0 = cpu(); a = await wasmRun(); runs.wasm.push(cpu() - c0);
    c0 = cpu(); b = await ortSession.embed(crop); runs.onnx.push(cpu() - c0);
  }
  let maxDiff = 0, dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!)); dot += a[i]! * b[i]!; na += a[i]! ** 2; nb += b[i]! ** 2; }
  console.log(`faceres 1024-d, CPU per call (median of ${N}, alternating): tfjs-backend-wasm ${median(runs.wasm).toFixed(1)} ms, onnxruntime-node ${median(runs.onnx).toFixed(1)} ms; max |difference| ${maxDiff.toExponential(1)}, cosine ${(dot / Math.sqrt(na * nb)).toFixed(9)}; load average ${la()}`);
  graph.dispose();
  // face-api's 128-d net the same way: its own tfjs forward pass against the ONNX graph of its weights
  const faceapi = loadFaceApi();
  const net = new faceapi.FaceRecognitionNet();
  await net.loadFromDisk(faceApiModelDir());
  const rec = await createRecognitionSession(net.params);
  const r = { wasm: [] as number[], onnx: [] as number[] };
  let maxDiff128 = 0;
  for (let i = 0; i < N; i++) {
    let c0 = cpu();
    const t = tf.tensor3d(crop150, [150, 150, 3], 'float32');
    const want = Float32Array.from(await net.computeFaceDescriptor(t) as Float32Array);
    tf.dispose(t);
    r.wasm.push(cpu() - c0);
    c0 = cpu(); const got = await rec.describe(crop150); r.onnx.push(cpu() - c0);
    for (let k = 0; k < 128; k++) maxDiff128 = Math.max(maxDiff128, Math.abs(got[k]! - want[k]!));
  }
  console.log(`face-api 128-d net, CPU per call (median of ${N}, alternating): tfjs-backend-wasm ${median(r.wasm).toFixed(1)} ms, onnxruntime-node ${median(r.onnx).toFixed(1)} ms; max |difference| ${maxDiff128.toExponential(1)}; load average ${la()}`);
  net.dispose();
  // the tiny detector's body and the 68-point landmark net: face-api's tfjs code against the ONNX graphs
  const tinyRef = new faceapi.TinyFaceDetector(); await tinyRef.loadFromDisk(faceApiModelDir());
  const tinyOnnx = new faceapi.TinyFaceDetector(); await tinyOnnx.loadFromDisk(faceApiModelDir());
  useOnnxTinyDetector(tf, tinyOnnx);
  const lmRef = new faceapi.FaceLandmark68Net(); await lmRef.loadFromDisk(faceApiModelDir());
  const lmOnnx = new faceapi.FaceLandmark68Net(); await lmOnnx.loadFromDisk(faceApiModelDir());
  await useOnnxLandmarkNet(tf, faceapi, lmOnnx);
  const photo = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
  const box = face.alignedBox;
  const faceT = tf.slice3d(photo, [box.y, box.x, 0], [box.h, box.w, 3]);
  const d = { tinyWasm: [] as number[], tinyOnnx: [] as number[], lmWasm: [] as number[], lmOnnx: [] as number[] };
  let maxGrid = 0, maxPx = 0;
  for (let i = 0; i < N; i++) {
    const input = await faceapi.toNetInput(photo);
    let c0 = cpu(); const ga = tinyRef.forwardInput(input, 416); const va = await ga.data(); d.tinyWasm.push(cpu() - c0);
    c0 = cpu(); const gb = await tinyOnnx.forwardInput(input, 416); const vb = await gb.data(); d.tinyOnnx.push(cpu() - c0);
    for (let k = 0; k < va.length; k++) maxGrid = Math.max(maxGrid, Math.abs(va[k] - vb[k]));
    tf.dispose([ga, gb]);
    c0 = cpu(); const la1 = await lmRef.detectLandmarks(faceT); d.lmWasm.push(cpu() - c0);
    c0 = cpu(); const lb1 = await lmOnnx.detectLandmarks(faceT); d.lmOnnx.push(cpu() - c0);
    la1.positions.forEach((p: { x: number; y: number }, k: number) => { maxPx = Math.max(maxPx, Math.abs(p.x - lb1.positions[k].x), Math.abs(p.y - lb1.positions[k].y)); });
  }
  console.log(`tiny detector body at 416 px (incl. face-api's resize), CPU per call (median of ${N}, alternating): tfjs-backend-wasm ${median(d.tinyWasm).toFixed(1)} ms, onnxruntime-node ${median(d.tinyOnnx).toFixed(1)} ms; max |difference| of the output grid ${maxGrid.toExponential(1)}; load average ${la()}`);
  console.log(`68-point landmark net, CPU per call (median of ${N}, alternating): tfjs-backend-wasm ${median(d.lmWasm).toFixed(1)} ms, onnxruntime-node ${median(d.lmOnnx).toFixed(1)} ms; max |difference| ${maxPx.toExponential(1)} px; load average ${la()}`);
  tf.dispose([photo, faceT]);
  for (const n of [tinyRef, tinyOnnx, lmRef, lmOnnx]) n.dispose();
  fi.dispose();
}
console.log(`load average now ${la()}`);
