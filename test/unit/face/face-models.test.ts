/**
 * The face engine on real labelled photos from `../shared/data/faces` (skipped with a printed reason
 * where that folder is absent). Runs the job handlers in-process: real models, no HTTP.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { handlers } from '../../../models/face/jobs.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const faces = path.resolve(repoRoot, '../shared/data/faces');
const present = existsSync(path.join(faces, 'labels.csv'));
if (!present) console.warn(`face model tests on shared data skipped: ${faces} is absent`);
const img = (p: string) => new Uint8Array(readFileSync(path.join(faces, p)));

describe.skipIf(!present)('face engine on labelled photos', () => {
  it('verifies a genuine LFW pair and rejects two different people', async () => {
    const same = await handlers['face.verify']({ image1: img('facenet-lfw/Anthony_Hopkins_0001.jpg'), image2: img('facenet-lfw/Anthony_Hopkins_0002.jpg') });
    expect(same.verified).toBe(true);
    expect(same.distance).toBeLessThan(same.threshold);
    const diff = await handlers['face.verify']({ image1: img('facenet-lfw/Anthony_Hopkins_0001.jpg'), image2: img('face_recognition/examples/obama_small.jpg') });
    expect(diff.verified).toBe(false);
  });

  it('finds a face in a tight 150x150 grey crop (padded retry) and none in the no-face image', async () => {
    const d = await handlers['face.descriptor']({ image: img('face-api-js/images/penny/penny3.png') });
    expect(d.descriptor128).toHaveLength(128);
    expect(d.descriptor1024).toHaveLength(1024);
    expect(Math.hypot(...d.descriptor1024)).toBeCloseTo(1, 5);
    await expect(handlers['face.detect']({ image: img('compreface/sample_images/017_0.jpg') })).rejects.toMatchObject({ code: 'no_face_detected' });
  });

  it('counts the faces of a multi-face photo', async () => {
    const r = await handlers['face.detect']({ image: img('face_recognition/examples/knn_examples/test/obama_and_biden.jpg') });
    expect(r.faces).toHaveLength(2);
  });

  it('judges the screen replay and the print of the anti-spoofing samples not live', async () => {
    const replay = await handlers['face.liveness']({ image: img('antispoofing/antispoof-single-image/videoplay.jpg') });
    const print = await handlers['face.liveness']({ image: img('antispoofing/antispoof-single-image/printsp.jpg') });
    const live = await handlers['face.liveness']({ image: img('antispoofing/silent-face/image_T1.jpg') });
    expect(replay.is_live).toBe(false);
    expect(print.is_live).toBe(false);
    expect(live.is_live).toBe(true);
    expect(live.anti_spoofing_score).toBeGreaterThan(replay.anti_spoofing_score);
  });
});
