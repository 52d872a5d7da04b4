/**
 * Workflow-engine factory: the one place where configuration (`WORKFLOWS`) selects the engine. Adding
 * an engine is one branch here plus its run of `test/contract/workflows.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { Clock, WorkflowEngine } from '../ports/workflows.ts';
import { createEmbeddedWorkflowEngine, type EngineLogger } from './embedded/index.ts';
import { createTemporalWorkflowEngine } from './temporal/engine.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type WorkflowsAdapter = Config['WORKFLOWS'];

export function selectWorkflows(config: Config): WorkflowsAdapter {
  return config.WORKFLOWS;
}

/**
 * Creates the configured engine (not running: the process that runs workflows calls `run()`).
 * `temporal`: the Temporal server at `TEMPORAL_ADDRESS` (namespace `TEMPORAL_NAMESPACE`, task queue
 * `TEMPORAL_TASK_QUEUE`); every API process runs a worker.
 * @throws Error when `temporal` is selected without `TEMPORAL_ADDRESS`.
 */
export function createWorkflowEngine(config: Config, deps: { clock: Clock; logger?: EngineLogger }): WorkflowEngine {
  const adapter = selectWorkflows(config);
  switch (adapter) {
    case 'sqlite':
      return createEmbeddedWorkflowEngine({
        path: join(resolve(config.DATA_DIR), 'workflows.sqlite'),
        clock: deps.clock,
        logger: deps.logger,
        pollIntervalMs: config.WORKFLOW_POLL_MS,
      });
    case 'temporal':
      if (!config.TEMPORAL_ADDRESS) throw new Error('WORKFLOWS=temporal needs TEMPORAL_ADDRESS');
      return createTemporalWorkflowEngine({
        address: config.TEMPORAL_ADDRESS,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        clockRecheckMs: config.TEMPORAL_CLOCK_RECHECK_MS,
        clock: deps.clock,
        logger: deps.logger,
      });
    default:
      return unknownAdapter('workflows', adapter);
  }
}
