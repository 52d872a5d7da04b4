/**
 * Cost of sealing usage IP addresses and user agents (issue 28, docs/privacy.md "Usage events"): the
 * usage-writer thread's append of usage batches (`appendUsage`: `batchEventsOf` then one `ApiCallsRecorded`
 * per tenant and UTC day), and the usage-events projection's replay of them, with the event store's privacy
 * layer (each batch's `personal_strings` sealed with AES-256-GCM under the tenant's key of the day, keys in
 * DATA_DIR/keys/keys.sqlite) against the plain SQLite adapter, in the same run, alternating.
 * The HTTP thread's part (`UsageRecorder.recordCall`) only buffers columns (sealing happens in the writer):
 * its cost per call is printed too, without and with a data subject named (enrol, verify, delete).
 *
 *   node --import tsx bench/usage-sealing.bench.ts [--batches 300] [--calls 1000] [--tenants 4] [--rounds 3]
 *
 * Prints calls appended per second (best round of each) and the replay rate (calls/s into usage_events).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../apps/api/config.ts';
import { appendUsage, NUMBER_FIELDS, TEXT_FIELDS, UsageRecorder, type UsageColumns } from '../apps/platform/usage-recorder.ts';
import { pino } from 'pino';
import { createEventStore, createRawEventStore } from '../infra/event-store/index.ts';
import { SqliteReadModelStore } from '../infra/read-models/sqlite/sqlite-read-models.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import { usageEventsProjection } from '../projections/usage-events/usage-events.ts';
import type { EventStore } from '../infra/ports/event-store.ts';
import type { ProjectionDeps } from '../projections/projection.ts';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? Number(process.argv[i + 1]) : def;
}
const BATCHES = arg('batches', 300);
const CALLS = arg('calls', 1000);
const TENANTS = arg('tenants', 4);
const ROUNDS = arg('rounds', 3);
const ENDPOINTS = ['/v1/face/verify', '/v1/ocr/extract/id', '/v1/email/verify', '/v1/face-matching/search'];

/** A batch as the recorder hands it over: `CALLS` calls of `TENANTS` tenants, 200 addresses, 20 user agents. */
function batch(b: number, at: number): UsageColumns {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (t: string) => {
    let k = index.get(t);
    if (k === undefined) index.set(t, (k = strings.push(t) - 1));
    return k;
  };
  const refs = new Int32Array(CALLS * TEXT_FIELDS);
  const numbers = new Float64Array(CALLS * NUMBER_FIELDS);
  const requestId: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = i * TEXT_FIELDS;
    const o = i * NUMBER_FIELDS;
    requestId.push(`req_${b}_${i}`);
    refs[t] = ref(`ten_${i % TENANTS}`);
    refs[t + 1] = ref(`key_${i % (TENANTS * 2)}`);
    refs[t + 2] = ref(ENDPOINTS[i % ENDPOINTS.length]!);
    refs[t + 3] = ref('POST');
    refs[t + 4] = ref(`203.0.${(i * 7) % 200 >> 8}.${(i * 7) % 200}`);
    refs[t + 5] = ref(`client/${i % 20}.0 (bench)`);
    numbers.set([200, 0.05, 2048, 512, 1, at + i], o);
  }
  return { length: CALLS, requestId, strings, refs, numbers };
}

async function round(sealed: boolean): Promise<{ appendPerS: number; replayPerS: number }> {
  const dir = mkdtempSync(join(tmpdir(), `sello-usage-seal-${sealed ? 's' : 'p'}-`));
  const config = loadConfig({}, { DATA_DIR: dir, LOG_LEVEL: 'silent', PRIVACY_MASTER_KEY: 'cd'.repeat(32) });
  const store: EventStore = sealed ? createEventStore(config) : createRawEventStore(config);
  try {
    const at = Date.parse('2026-11-30T10:00:00Z');
    const batches = Array.from({ length: BATCHES }, (_, b) => batch(b, at + b * 50));
    const t0 = performance.now();
    for (const x of batches) await appendUsage(store, x);
    const appendS = (performance.now() - t0) / 1000;
    const readModels = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
    const t1 = performance.now();
    // The usage projection uses no vector index (it writes the read-model store only).
    await ProjectionRunner.replay(store, [usageEventsProjection], { store: readModels, vectorIndex: undefined as unknown as ProjectionDeps['vectorIndex'] });
    const replayS = (performance.now() - t1) / 1000;
    const rows = await (await readModels.collection('usage_events')).count({});
    if (rows !== BATCHES * CALLS) throw new Error(`replay built ${rows} rows, expected ${BATCHES * CALLS}`);
    await readModels.close();
    return { appendPerS: (BATCHES * CALLS) / appendS, replayPerS: (BATCHES * CALLS) / replayS };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

/** ns per `recordCall` on the HTTP thread (batches handed to a sink that drops them), best of 5 runs of 200,000 calls. */
async function recordCallNs(subject: string | null): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const recorder = new UsageRecorder({ append: async () => undefined, catchUp: async () => undefined, close: async () => undefined }, pino({ level: 'silent' }), 1_000_000, 1000);
    const n = 200_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      recorder.recordCall(`req_${i}`, 'ten_1', 'key_1', '/v1/face-matching/enroll', 'POST', 200, 0.05, 2048, 512, `203.0.113.${i % 200}`, 'client/1.0', 2, 1_796_000_000_000 + i, subject);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
    await recorder.close();
  }
  return best;
}

console.log(`usage sealing bench: ${BATCHES} batches x ${CALLS} calls, ${TENANTS} tenants, ${ROUNDS} rounds each, ${cpus().length} cores, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const best = { plain: { appendPerS: 0, replayPerS: 0 }, sealed: { appendPerS: 0, replayPerS: 0 } };
for (let r = 0; r < ROUNDS; r++) {
  for (const sealed of r % 2 ? [true, false] : [false, true]) {
    const x = await round(sealed);
    const b = best[sealed ? 'sealed' : 'plain'];
    b.appendPerS = Math.max(b.appendPerS, x.appendPerS);
    b.replayPerS = Math.max(b.replayPerS, x.replayPerS);
    console.log(`  round ${r + 1} ${sealed ? 'sealed' : 'plain '}: append ${fmt(x.appendPerS)} calls/s, replay ${fmt(x.replayPerS)} calls/s`);
  }
}
console.log(`best append: plain ${fmt(best.plain.appendPerS)} calls/s, sealed ${fmt(best.sealed.appendPerS)} calls/s (${((best.sealed.appendPerS / best.plain.appendPerS) * 100).toFixed(1)} %)`);
console.log(`best replay: plain ${fmt(best.plain.replayPerS)} calls/s, sealed ${fmt(best.sealed.replayPerS)} calls/s (${((best.sealed.replayPerS / best.plain.replayPerS) * 100).toFixed(1)} %)`);
console.log(`recordCall on the HTTP thread: ${(await recordCallNs(null)).toFixed(0)} ns/call without a subject, ${(await recordCallNs('subj-1')).toFixed(0)} ns/call naming one`);
console.log(`load after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
