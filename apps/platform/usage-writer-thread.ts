/**
 * The usage-writer thread of an API process (see `UsageWriterThread` in `./usage-writer.ts`): it
 * appends the usage batches the main thread posts (as `ApiCallsRecorded` events), with its own connection to the event
 * store, and runs the projections that read usage events (`usage-events`, `usage-analytics`; see
 * `readsUsageEvents`) against its own connection to the read models, so neither the SQLite writes
 * nor the projection of a call's usage event run on the thread that serves HTTP.
 *
 * Messages in: `{ id, op: 'append', batch }` (the calls as `UsageColumns`), `{ id, op: 'catchUp' }`, `{ id, op: 'close' }`.
 * Answers: `{ id, ok: true }` or `{ id, ok: false, error }` (the message of the error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../api/config.ts';
import { createEventStore } from '../../infra/event-store/index.ts';
import { createReadModels } from '../../infra/read-models/index.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { capabilities, projectionsOf } from '../capabilities/index.ts';
import { appendUsage, readsUsageEvents, type UsageColumns } from './usage-recorder.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';

type Message = { id: number; op: 'append'; batch: UsageColumns } | { id: number; op: 'catchUp' } | { id: number; op: 'close' };

const config = (workerData as { config: Config }).config;
// The projections below read back every usage event this thread appends: they get them from memory
// (neither they nor `appendUsage` modify events), not from a query and a JSON parse each (issue 18).
const events = createEventStore(config, { recentAppends: 4000 });
const readModels = createReadModels(config);
const projections = projectionsOf(capabilities).filter(readsUsageEvents);
const noVectorIndex = new Proxy({} as VectorIndex, {
  get() {
    throw new Error('a projection of usage events may not use the vector index (it runs on the usage-writer thread)');
  },
});
const runner = new ProjectionRunner(events, projections, { store: readModels, vectorIndex: noVectorIndex }, (name, error) =>
  parentPort!.postMessage({ id: 0, ok: false, error: `projection ${name} failed: ${(error as Error).message}` }),
);
await runner.start();

const port = parentPort!;
port.on('message', (m: Message) => {
  void (async () => {
    try {
      if (m.op === 'append') await appendUsage(events, m.batch);
      else if (m.op === 'catchUp') await runner.catchUp();
      else {
        await runner.stop();
        await readModels.close();
        await events.close();
        port.postMessage({ id: m.id, ok: true });
        port.close();
        return;
      }
      port.postMessage({ id: m.id, ok: true });
    } catch (error) {
      port.postMessage({ id: m.id, ok: false, error: (error as Error).message });
    }
  })();
});
port.postMessage({ id: -1, ok: true }); // ready
