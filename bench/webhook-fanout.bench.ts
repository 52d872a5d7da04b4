/**
 * Benchmark: fan-out of EVENTS catalog events (default 10,000) to ENDPOINTS HTTPS receivers on loopback
 * (default 10), every endpoint subscribed to the event type, so EVENTS x ENDPOINTS deliveries.
 * Runs the real embedded stack: SQLite event store and read models, the `webhooks` projection, the
 * embedded workflow engine, undici over TLS to node:https receivers in the same process.
 *
 * Prints: deliveries per second (first append to last receipt), and event-to-receipt latency
 * percentiles (append of the event -> the receiver has the whole body). All events are appended in one
 * burst, so latency includes the time a delivery waits behind the backlog; PACE_PER_S paces the
 * appends instead (e.g. PACE_PER_S=200) to measure latency below saturation.
 *
 *   node --import tsx bench/webhook-fanout.bench.ts            # 10,000 x 10
 *   EVENTS=1000 ENDPOINTS=10 CONCURRENCY=8 node --import tsx bench/webhook-fanout.bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { webhookEventsStream } from '../domain/webhooks/catalog.ts';
import { makeCertificate, startReceiver, type WebhookReceiver } from '../test/helpers/webhook-receiver.ts';
import { openWebhookStack } from '../test/helpers/webhook-stack.ts';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 10);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const PACE = Number(process.env.PACE_PER_S ?? 0);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const cert = await makeCertificate();
  const receivers: WebhookReceiver[] = [];
  for (let i = 0; i < ENDPOINTS; i++) receivers.push(await startReceiver(cert));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sello-wh-bench-'));
  const clock = { now: () => Date.now() };
  const stack = await openWebhookStack(
    dir,
    clock,
    { allowCidrs: '127.0.0.0/8,::1/128', caCertsPath: cert.certFile, timeoutMs: 10_000, perEndpointConcurrency: CONCURRENCY },
    { pollMs: 50 },
  );
  for (const rx of receivers) {
    await stack.runtime.service.create('t_bench', { url: `${rx.origin}/hook`, events: ['face.verified'] });
  }

  const total = EVENTS * ENDPOINTS;
  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  let lastReceipt = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  for (const rx of receivers) {
    rx.onRequest = (req) => {
      const id = (JSON.parse(req.body.toString('utf8')) as { id: string }).id;
      const t = appendedAt.get(id);
      if (t !== undefined) latencies.push(req.at - t);
      received++;
      lastReceipt = req.at;
      if (received === total) done();
    };
  }

  const stream = webhookEventsStream('t_bench');
  const t0 = performance.now();
  const batch = PACE > 0 ? Math.max(1, Math.round(PACE / 20)) : 500;
  for (let i = 0; i < EVENTS; i += batch) {
    const n = Math.min(batch, EVENTS - i);
    const evs = Array.from({ length: n }, (_, k) => ({ type: 'face.verified', data: { seq: i + k, verified: true, confidence: 0.9 }, metadata: { tenant_id: 't_bench' } }));
    const now = performance.now();
    await stack.events.append(stream, evs);
    // Map the appended events' ids (read back: ids are assigned by the store).
    const back = await stack.events.readStream(stream, { fromRevision: i, maxCount: n });
    for (const e of back.events) appendedAt.set(e.eventId, now);
    if (PACE > 0) {
      const due = t0 + ((i + n) / PACE) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
  const appendMs = performance.now() - t0;
  const progress = setInterval(() => process.stderr.write(`  ${received}/${total} received\n`), 10_000);
  await finished;
  clearInterval(progress);
  const elapsedS = (lastReceipt - t0) / 1000;
  latencies.sort((a, b) => a - b);

  // Let the projection and the workflow completions settle, then check the books.
  await stack.settle();
  const del = await stack.runtime.service.list('t_bench', { page: 1, per_page: 100 });
  const ok = del.data.every((e) => e.success_rate === 1);

  console.log(`webhook fan-out benchmark (${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version})`);
  console.log(`  events ${EVENTS} x endpoints ${ENDPOINTS} = ${total} deliveries; per-endpoint concurrency ${CONCURRENCY}; ${PACE > 0 ? `paced ${PACE} events/s` : 'burst append'} (append took ${appendMs.toFixed(0)} ms)`);
  console.log(`  throughput: ${(total / elapsedS).toFixed(0)} deliveries/s (${elapsedS.toFixed(1)} s from first append to last receipt)`);
  console.log(
    `  event-to-receipt: p50 ${pct(latencies, 50).toFixed(0)} ms, p90 ${pct(latencies, 90).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
  );
  console.log(`  received ${received}, duplicates ${received - total}; all endpoints success_rate 1: ${ok}`);

  await stack.close();
  for (const rx of receivers) await rx.close();
  cert.dispose();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
