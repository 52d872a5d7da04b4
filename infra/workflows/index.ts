/**
 * Workflow-engine factory: the one place where configuration (`WORKFLOWS`) selects the engine. Adding
 * an engine is one branch here plus its run of `test/contract/workflows.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { Clock, WorkflowEngine } from '../ports/workflows.ts';
import { createEmbeddedWorkflowEngine, type EngineLogger } from './embedded/index.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type WorkflowsAdapter = Config['WORKFLOWS'];

export function selectWorkflows(config: Config): WorkflowsAdapter {
  return config.WORKFLOWS;
}

/** Creates the configured engine (not running: the process that runs workflows calls `run()`). */
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
    default:
      return unknownAdapter('workflows', adapter);
  }
}
