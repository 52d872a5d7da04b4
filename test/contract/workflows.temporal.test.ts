/**
 * The workflows contract, unchanged, on Temporal: the engine of `infra/workflows/temporal` against a
 * Temporal development server of this file's own (the CLI's `server start-dev`, installed by
 * `npm run engines`), so every restart test meets a real server (worker shutdown, sticky queues).
 * The suite's hand-moved clock is the process managers' clock: the harness sets `clockRecheckMs`, so a
 * Temporal timer reads that clock again every 100 ms and fires once the clock has passed its `at`
 * (production leaves it unset: the clock is the system's and a timer sleeps until due). A stopped
 * engine's workflows move to the next one after 1-2 s (sticky queue and workflow task timeouts; Temporal's
 * defaults are 10 s). Each harness has
 * its own task queue and workflow id prefix; its engines (the restart tests open a second one) share
 * them, as a restarted worker would.
 */
import { afterAll, describe, it } from 'vitest';
import { createTemporalWorkflowEngine, installRuntime } from '../../infra/workflows/temporal/engine.ts';
import type { WorkflowEngine } from '../../infra/ports/workflows.ts';
import { describeWorkflowEngineContract } from './workflows.contract.ts';
import { startTemporalDevServer, temporalCliPath } from '../helpers/temporal.ts';

const cli = temporalCliPath('Temporal workflows contract');

if (!cli) {
  describe.skip('workflows port contract: temporal (no Temporal CLI)', () => it('skipped', () => undefined));
} else {
  installRuntime(undefined);
  const server = await startTemporalDevServer(cli);
  afterAll(() => server.stop(), 30_000);
  let harnesses = 0;

  describeWorkflowEngineContract('temporal (development server)', async () => {
    const n = ++harnesses;
    const taskQueue = `contract-${process.pid}-${n}`;
    return {
      async open(clock) {
        return prefixed(createTemporalWorkflowEngine({ address: server.address, taskQueue, clock, clockRecheckMs: 100, stickyQueueTimeoutMs: 1000, workflowTaskTimeoutMs: 2000 }), `h${n}-`);
      },
      async dispose() {},
    };
  });
}

/** The engine with every workflow id prefixed: the suite's fixed ids ('wf-1') stay unique on the shared server. */
function prefixed(engine: WorkflowEngine, prefix: string): WorkflowEngine {
  return {
    register: (m, a) => engine.register(m, a),
    start: (name, id, input, options) => engine.start(name, prefix + id, input, options),
    signal: (id, name, payload) => engine.signal(prefix + id, name, payload),
    get: async <S>(id: string) => {
      const s = await engine.get<S>(prefix + id);
      return s && { ...s, workflowId: id };
    },
    run: () => engine.run(),
    stop: (graceMs) => engine.stop(graceMs),
  };
}
