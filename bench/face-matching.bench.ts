/**
 * Face-matching over HTTP (issue 4, "enrollment throughput"): the real server with its worker-thread
 * pool and face models, enrolling the labelled single-face images of `../shared/data/faces` (or, when
 * absent, the face-api demo samples), then searching and verifying with them.
 *
 *   node --import tsx bench/face-matching.bench.ts [--concurrency 2] [--max 70]
 *
 * Prints enrollments per second (inference included: `face.descriptor` per image; `liveness_score` is
 * sent so the liveness job does not run), and search/verify latency p50/p95 over HTTP.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../test/helpers/server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const facesDir = path.resolve(repoRoot, '../shared/data/faces');

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? (process.argv[i + 1] as string) : def;
}

function images(): Array<{ subject: string; bytes: Buffer }> {
  const labels = path.join(facesDir, 'labels.csv');
  if (existsSync(labels)) {
    return readFileSync(labels, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .filter((c) => c[1] && c[2] === '1' && /\.(png|jpe?g)$/i.test(c[0] ?? '') && !(c[c.length - 1] ?? '').trim())
      .map((c) => ({ subject: c[1]!, bytes: readFileSync(path.join(facesDir, c[0]!)) }));
  }
  console.warn(`${facesDir} absent: using the face-api demo samples`);
  const dir = path.join(repoRoot, 'node_modules/@vladmandic/face-api/demo');
  return [1, 2, 3, 4, 5, 6].map((n) => ({ subject: `sample${n}`, bytes: readFileSync(path.join(dir, `sample${n}.jpg`)) }));
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const concurrency = Number(arg('concurrency', '2'));
const s = await startTestServer({ config: { WORKER_THREADS: concurrency } });
try {
  const { key } = await s.tenantWithKey('enterprise');
  const imgs = images().slice(0, Number(arg('max', '1000')));
  const post = async (url: string, fields: Record<string, string | Buffer>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      if (typeof v === 'string') f.set(k, v);
      else f.set(k, new Blob([new Uint8Array(v)]), k);
    }
    const t = performance.now();
    const r = await s.fetch(url, { method: 'POST', key, body: f });
    const body = await r.json();
    return { ms: performance.now() - t, status: r.status, body };
  };
  // Warm the workers (model load) before timing.
  await post('/v1/face-matching/search', { image: imgs[0]!.bytes });
  let next = 0;
  let ok = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < imgs.length) {
        const it = imgs[next++]!;
        const r = await post('/v1/face-matching/enroll', { image: it.bytes, subject_id: it.subject, liveness_score: '0.9' });
        if (r.status === 200) ok++;
      }
    }),
  );
  const enrollS = (performance.now() - t0) / 1000;
  const search: number[] = [];
  const verify: number[] = [];
  for (const it of imgs.slice(0, 30)) {
    search.push((await post('/v1/face-matching/search', { image: it.bytes })).ms);
    verify.push((await post(`/v1/face-matching/verify/${encodeURIComponent(it.subject)}`, { image: it.bytes })).ms);
  }
  console.log(
    JSON.stringify({
      images: imgs.length,
      enrolled: ok,
      concurrency,
      enroll_per_s: +(imgs.length / enrollS).toFixed(2),
      search_http_p50_ms: Math.round(pct(search, 50)),
      search_http_p95_ms: Math.round(pct(search, 95)),
      verify_http_p50_ms: Math.round(pct(verify, 50)),
      verify_http_p95_ms: Math.round(pct(verify, 95)),
    }),
  );
} finally {
  await s.close();
}
