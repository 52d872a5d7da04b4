import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedWorkflowEngine } from '../../infra/workflows/embedded/index.ts';
import { describeWorkflowEngineContract } from './workflows.contract.ts';

describeWorkflowEngineContract('embedded (SQLite)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-wf-'));
  const file = path.join(dir, 'workflows.sqlite');
  return {
    async open(clock) {
      return createEmbeddedWorkflowEngine({ path: file, clock, pollIntervalMs: 10 });
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
