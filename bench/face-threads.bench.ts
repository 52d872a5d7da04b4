/**
 * Where a verify request's CPU goes, per thread: runs `POST /v1/face/verify` as `bench/face-verify.bench.ts`
 * does (same server, same photos, same in-process client) at concurrency 1 and 4, and prints each thread's
 * CPU time per request (ms, from `/proc/self/task/<tid>/stat`, utime + stime, clock ticks of 10 ms) with
 * its name, grouped: the main thread (HTTP server + benchmark client), the two inference workers (the
 * threads with the most CPU besides main), V8's platform threads (GC, compilation), libuv's pool (sharp,
 * fs), the rest. Linux only. Run: `node --import tsx bench/face-threads.bench.ts` (BENCH_N, default 40).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startTestServer } from '../test/helpers/server.ts';
import { faceCrop } from '../test/api/face/fixtures.ts';

const N = Number(process.env.BENCH_N ?? 40);
const la = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const s = await startTestServer({ config: { WORKER_THREADS: 2 } });
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);
await s.grant(tenantId, 1_000_000);
const img1 = await faceCrop('a', 0.6);
const img2 = await faceCrop('a', 0.35, { brightness: 1.1, flip: true });

/** CPU ms of every thread of this process, by tid, with its name. */
function threads(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { name, ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch { /* thread ended */ }
  }
  return out;
}
async function once(): Promise<void> {
  const fd = new FormData();
  fd.append('image1', new Blob([new Uint8Array(img1)], { type: 'image/jpeg' }), 'a.jpg');
  fd.append('image2', new Blob([new Uint8Array(img2)], { type: 'image/jpeg' }), 'b.jpg');
  const res = await fetch(`${s.url}/v1/face/verify`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${key}` } });
  const j = (await res.json()) as { data?: { verified: boolean } };
  if (res.status !== 200 || !j.data?.verified) throw new Error(`unexpected answer ${res.status}`);
}
async function run(c: number, n: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: c }, async () => { while (next < n) { next++; await once(); } }));
}
await run(2, 6);
await new Promise((r) => setTimeout(r, 500));
const mainTid = String(process.pid);
for (const c of [1, 4, 1, 4]) {
  const t0 = threads(), cpu0 = process.cpuUsage(), w0 = performance.now();
  await run(c, N);
  const cpu = process.cpuUsage(cpu0), wall = performance.now() - w0;
  const t1 = threads();
  const rows = [...t1].map(([tid, v]) => ({ tid, name: v.name, ms: (v.ms - (t0.get(tid)?.ms ?? 0)) / N }));
  const busy = rows.filter((r) => r.tid !== mainTid).sort((a, b) => b.ms - a.ms);
  const workers = busy.slice(0, 2);
  const group = (pred: (r: typeof rows[number]) => boolean) => rows.filter((r) => r.tid !== mainTid && !workers.includes(r) && pred(r)).reduce((a, r) => a + r.ms, 0);
  const main = rows.find((r) => r.tid === mainTid)!.ms;
  console.log(`c${c} n=${N}: ${(wall / N).toFixed(0)} ms wall/request; CPU per request ${((cpu.user + cpu.system) / 1000 / N).toFixed(1)} ms (process.cpuUsage); per thread: main ${main.toFixed(1)}, workers ${workers.map((w) => `${w.name}:${w.ms.toFixed(1)}`).join(' + ')}, V8 platform ${group((r) => /V8/.test(r.name)).toFixed(1)}, libuv ${group((r) => /libuv/.test(r.name)).toFixed(1)}, other ${group((r) => !/V8|libuv/.test(r.name)).toFixed(1)}; load average ${la()}`);
  if (process.env.VERBOSE) console.log(rows.filter((r) => r.ms > 0).map((r) => `${r.tid}:${r.name}:${r.ms.toFixed(1)}`).join(' '));
}
await s.close();
