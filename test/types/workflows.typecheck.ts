import type { WorkflowEngine } from '../../infra/ports/workflows.ts';
import type { EmbeddedWorkflowEngine } from '../../infra/workflows/embedded/index.ts';
import type { createTemporalWorkflowEngine } from '../../infra/workflows/temporal/engine.ts';
import type { Satisfies } from './satisfies.ts';

export type WorkflowEngines = [
  Satisfies<WorkflowEngine, EmbeddedWorkflowEngine>,
  Satisfies<WorkflowEngine, ReturnType<typeof createTemporalWorkflowEngine>>,
];
