/**
 * Face routes over real HTTP (real server, real worker pool, real models from npm packages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { faceCrop, gif, noFace, overFiveMb, pixelBomb, sample1, tiny } from './fixtures.ts';

let s: TestServer;
let key: string;
let tenantId: string;

beforeAll(async () => {
  s = await startTestServer();
  ({ key, tenantId } = await s.tenantWithKey('pro'));
  await s.setLimits(tenantId, null, null);
});
afterAll(async () => { await s?.close(); });

function form(files: Record<string, { data: Buffer; name?: string; type?: string }>, fields: Record<string, string | string[]> = {}): FormData {
  const fd = new FormData();
  for (const [k, f] of Object.entries(files)) fd.append(k, new Blob([new Uint8Array(f.data)], { type: f.type ?? 'image/jpeg' }), f.name ?? `${k}.jpg`);
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) fd.append(k, x);
  return fd;
}

async function post(path: string, body: FormData | string, headers: Record<string, string> = {}) {
  const res = await s.fetch(path, { method: 'POST', body, key, headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.success).toBe(false);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
  expect(typeof r.body.error.details).toBe('object');
}

describe('POST /v1/face/verify', () => {
  it('verifies the same face and rejects a different one, charging 2 credits and emitting face.verified', async () => {
    const a1 = await faceCrop('a', 0.6);
    const a2 = await faceCrop('a', 0.35, { brightness: 1.15, flip: true });
    const other = await faceCrop('c', 0.6);
    const same = await post('/v1/face/verify', form({ image1: { data: a1 }, image2: { data: a2 } }));
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.success).toBe(true);
    const d = same.body.data;
    expect(d.verified).toBe(true);
    expect(d.distance).toBeLessThan(d.threshold);
    expect(d.confidence).toBeGreaterThan(0.5);
    expect(d.confidence).toBeLessThanOrEqual(1);
    expect(d.face1_detected).toBe(true);
    expect(d.face2_detected).toBe(true);
    expect(d.processing_time).toBeGreaterThan(0);
    expect(same.headers.get('x-credit-cost')).toBe('2');

    const diff = await post('/v1/face/verify', form({ image1: { data: a1 }, image2: { data: other } }));
    expect(diff.status).toBe(200);
    expect(diff.body.data.verified).toBe(false);
    expect(diff.body.data.distance).toBeGreaterThan(diff.body.data.threshold);

    const stream = await s.ctx.events.readStream(`webhook-events-${tenantId}`);
    const verified = stream.events.filter((e) => e.type === 'face.verified');
    expect(verified.length).toBeGreaterThanOrEqual(2);
    const data = verified.at(-1)!.data as Record<string, unknown>;
    expect(data.verified).toBe(false);
    expect(JSON.stringify(data)).not.toMatch(/base64|image\/jpeg/);
  });

  it('names the image without a face, and charges nothing', async () => {
    const r = await post('/v1/face/verify', form({ image1: { data: await faceCrop('a') }, image2: { data: await noFace() } }));
    expectError(r, 400, 'no_face_detected');
    expect(r.body.error.details.image).toBe('image2');
    expect(Array.isArray(r.body.error.details.suggestions)).toBe(true);
    expect(r.body.error.details.suggestions.length).toBeGreaterThan(0);
    expect(r.headers.get('x-credit-cost')).toBe('0');
  });

  it('refuses a group photo where one face is expected', async () => {
    const r = await post('/v1/face/verify', form({ image1: { data: sample1() }, image2: { data: await faceCrop('a') } }));
    expectError(r, 400, 'multiple_faces_detected');
    expect(r.body.error.details.image).toBe('image1');
  });

  it('requires both files', async () => {
    const r = await post('/v1/face/verify', form({ image1: { data: await faceCrop('a') } }));
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
  });
});

describe('image checks shared by the face routes', () => {
  it('judges the format from the bytes: a PNG named .jpg is accepted, a GIF is refused', async () => {
    const png = await faceCrop('b', 0.6, { format: 'png' });
    const ok = await post('/v1/face/detect', form({ image: { data: png, name: 'photo.jpg', type: 'image/jpeg' } }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.faces_detected).toBe(1);
    const g = await post('/v1/face/detect', form({ image: { data: gif(), name: 'photo.jpg', type: 'image/jpeg' } }));
    expectError(g, 400, 'unsupported_format');
    const text = await post('/v1/face/analyze', form({ image: { data: Buffer.from('not an image at all, just text'), name: 'a.png', type: 'image/png' } }));
    expectError(text, 400, 'unsupported_format');
  });

  it('refuses a truncated JPEG', async () => {
    const full = await faceCrop('a');
    const r = await post('/v1/face/detect', form({ image: { data: full.subarray(0, Math.floor(full.length / 3)) } }));
    expectError(r, 400, 'unsupported_format');
  });

  it('refuses an image under 100x100 px', async () => {
    expectError(await post('/v1/face/landmarks', form({ image: { data: await tiny() } })), 400, 'image_too_small');
  });

  it('refuses a file over 5 MB with 413', async () => {
    const big = await overFiveMb();
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    expectError(await post('/v1/face/liveness', form({ image: { data: big, name: 'big.png', type: 'image/png' } })), 413, 'image_too_large');
  });

  it('refuses a decompression bomb (small file, 144 megapixels)', async () => {
    const bomb = await pixelBomb();
    expect(bomb.length).toBeLessThan(5 * 1024 * 1024);
    expectError(await post('/v1/face/detect', form({ image: { data: bomb, name: 'bomb.png', type: 'image/png' } })), 413, 'image_too_large');
  });

  it('answers a 60 MB upload with 413 before reading it all', async () => {
    const huge = Buffer.alloc(60 * 1024 * 1024, 0xff);
    huge[0] = 0xff; huge[1] = 0xd8; huge[2] = 0xff;
    let status = 0, body: any = null;
    try {
      const res = await s.fetch('/v1/face/detect', { method: 'POST', key, body: form({ image: { data: huge } }) });
      status = res.status;
      body = await res.json();
    } catch (err) {
      // The server may close the connection once it has answered; the answer must still be a 413.
      throw new Error(`connection failed before an answer: ${(err as Error).message}`);
    }
    expect(status).toBe(413);
    expect(body.error.code).toBe('image_too_large');
  });

  it('refuses a blurred face as insufficient_quality', async () => {
    const blurred = await sharp(await faceCrop('b', 0.6)).blur(5).jpeg().toBuffer();
    const r = await post('/v1/face/analyze', form({ image: { data: blurred } }));
    // Heavy blur either hides the face from the detector or fails the sharpness measure.
    expect(r.status).toBe(400);
    expect(['insufficient_quality', 'no_face_detected']).toContain(r.body.error.code);
    if (r.body.error.code === 'insufficient_quality') expect(r.body.error.details.failures).toContain('blurred');
  });

  it('rejects a non-multipart body and needs authentication', async () => {
    const r = await post('/v1/face/detect', JSON.stringify({ image: 'x' }), { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    const anon = await fetch(`${s.url}/v1/face/detect`, { method: 'POST', body: form({ image: { data: await tiny() } }) });
    expect(anon.status).toBe(401);
  });
});

describe('POST /v1/face/detect', () => {
  it('lists every face of a group photo with regions inside the image', async () => {
    const r = await post('/v1/face/detect', form({ image: { data: sample1() } }));
    expect(r.status).toBe(200);
    expect(r.body.data.faces_detected).toBe(3);
    expect(r.headers.get('x-credit-cost')).toBe('1');
    for (const f of r.body.data.faces) {
      expect(f.region.x).toBeGreaterThanOrEqual(0);
      expect(f.region.x + f.region.w).toBeLessThanOrEqual(1920);
      expect(f.region.y + f.region.h).toBeLessThanOrEqual(1280);
      expect(f.confidence).toBeGreaterThanOrEqual(0.5);
    }
    expect(r.body.data.faces.map((f: any) => f.id)).toEqual([1, 2, 3]);
  });

  it('validates min_confidence', async () => {
    const r = await post('/v1/face/detect', form({ image: { data: await faceCrop('a') } }, { min_confidence: '7' }));
    expect(r.status).toBe(400);
  });
});

describe('POST /v1/face/analyze', () => {
  it('returns only the attributes asked for, as a JSON array or repeated `actions`', async () => {
    const img = await faceCrop('a');
    const r = await post('/v1/face/analyze', form({ image: { data: img } }, { attributes: '["age","emotion"]' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = r.body.data;
    expect(d.age).toBeGreaterThan(5);
    expect(d.age).toBeLessThan(90);
    expect(d.gender).toBeUndefined();
    expect(Object.keys(d.emotion.emotions).sort()).toEqual(['angry', 'disgust', 'fear', 'happy', 'neutral', 'sad', 'surprise']);
    const top = Object.entries(d.emotion.emotions as Record<string, number>).sort((a, b) => b[1] - a[1])[0]![0];
    expect(d.emotion.dominant_emotion).toBe(top);
    expect(d.region.w).toBeGreaterThanOrEqual(80);

    const r2 = await post('/v1/face/analyze', form({ image: { data: img } }, { actions: ['gender', 'race'] }));
    expect(r2.status).toBe(200);
    expect(r2.body.data.age).toBeUndefined();
    expect(['Man', 'Woman']).toContain(r2.body.data.gender.prediction);
    expect(Object.keys(r2.body.data.race.races).sort()).toEqual(['asian', 'black', 'indian', 'other', 'white']);

    const bad = await post('/v1/face/analyze', form({ image: { data: img } }, { attributes: '["shoe_size"]' }));
    expect(bad.status).toBe(400);
  });

  it('reports the region in the pixels of the EXIF-rotated image', async () => {
    // Stored sideways (landscape pixels) with EXIF orientation 6: viewers show it 480x640 portrait.
    const upright = await faceCrop('a');
    const sideways = await sharp(upright).rotate(-90).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const a = await post('/v1/face/analyze', form({ image: { data: upright } }, { attributes: 'age' }));
    const b = await post('/v1/face/analyze', form({ image: { data: sideways } }, { attributes: 'age' }));
    expect(a.status).toBe(200);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(Math.abs(a.body.data.region.x - b.body.data.region.x)).toBeLessThan(25);
    expect(Math.abs(a.body.data.region.y - b.body.data.region.y)).toBeLessThan(25);
  });
});

describe('POST /v1/face/landmarks', () => {
  it('returns the named points inside the face region (68 and 5 point)', async () => {
    const img = await faceCrop('c');
    for (const model of ['68_point', '5_point']) {
      const r = await post('/v1/face/landmarks', form({ image: { data: img } }, { model }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const { landmarks: l, face_region: fr } = r.body.data;
      for (const k of ['left_eye', 'right_eye', 'nose_tip', 'mouth_left', 'mouth_right', 'chin']) {
        expect(l[k].x).toBeGreaterThanOrEqual(0);
        expect(l[k].x).toBeLessThan(640);
        expect(l[k].y).toBeLessThan(480);
      }
      // subject's left eye is on the image's right; eyes above the nose, nose above the mouth
      expect(l.left_eye.x).toBeGreaterThan(l.right_eye.x);
      expect(l.nose_tip.y).toBeGreaterThan(Math.min(l.left_eye.y, l.right_eye.y));
      expect(l.mouth_left.y).toBeGreaterThan(l.nose_tip.y - 5);
      expect(l.left_eye.x).toBeGreaterThanOrEqual(fr.x);
      expect(l.left_eye.x).toBeLessThanOrEqual(fr.x + fr.w);
      expect(l.left_eyebrow.length).toBe(model === '68_point' ? 5 : 2);
    }
    const bad = await post('/v1/face/landmarks', form({ image: { data: img } }, { model: '3_point' }));
    expect(bad.status).toBe(400);
  });
});

describe('POST /v1/face/liveness', () => {
  it('reports the checks and decides at the given threshold, emitting face.liveness.detected', async () => {
    const img = await faceCrop('a');
    const r = await post('/v1/face/liveness', form({ image: { data: img } }, { threshold: '0.3' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = r.body.data;
    expect(d.threshold).toBe(0.3);
    for (const k of ['texture_analysis', 'depth_analysis', 'motion_analysis']) {
      expect(d.checks[k]).toBeGreaterThanOrEqual(0);
      expect(d.checks[k]).toBeLessThanOrEqual(1);
    }
    expect(d.is_live).toBe(d.anti_spoofing_score >= 0.3);
    expect(r.headers.get('x-credit-cost')).toBe('3');
    const strict = await post('/v1/face/liveness', form({ image: { data: img } }, { threshold: '1' }));
    expect(strict.body.data.is_live).toBe(strict.body.data.anti_spoofing_score >= 1);
    const stream = await s.ctx.events.readStream(`webhook-events-${tenantId}`);
    expect(stream.events.some((e) => e.type === 'face.liveness.detected')).toBe(true);
    const badT = await post('/v1/face/liveness', form({ image: { data: img } }, { threshold: 'abc' }));
    expect(badT.status).toBe(400);
  });
});

describe('access and rate classes', () => {
  it('needs the read permission and limits analyze, landmarks and liveness at half the standard rate', async () => {
    const t = await s.createTenant('free');
    const writeOnly = await s.createKey(t, ['write']);
    const denied = await s.fetch('/v1/face/detect', { method: 'POST', key: writeOnly.key, body: form({ image: { data: await tiny() } }) });
    expect(denied.status).toBe(403);
    const reader = await s.createKey(t, ['read']);
    await s.setLimits(t, 4, null); // standard 4/min, heavy 2/min
    const status = async (path: string) =>
      (await s.fetch(path, { method: 'POST', key: reader.key, body: form({ image: { data: await tiny() } }) })).status;
    // image_too_small is refused before inference and not charged, but it counts against the rate limit
    expect(await status('/v1/face/analyze')).toBe(400);
    expect(await status('/v1/face/liveness')).toBe(400);
    expect(await status('/v1/face/landmarks')).toBe(429);
    expect(await status('/v1/face/detect')).toBe(400);
    expect(await status('/v1/face/detect')).toBe(400);
    expect(await status('/v1/face/detect')).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('documents the five face routes and says which expect one face', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
    for (const p of ['verify', 'analyze', 'detect', 'landmarks', 'liveness']) expect(doc.paths[`/v1/face/${p}`]?.post).toBeTruthy();
    expect(doc.paths['/v1/face/analyze'].post.description).toMatch(/exactly one face/);
    expect(doc.paths['/v1/face/detect'].post.description).toMatch(/no multiple_faces_detected/);
  });
});
