import { afterAll, describe, it } from 'vitest';
import { createPostgresWorkflowEngine } from '../../infra/workflows/postgres/index.ts';
import { describeWorkflowEngineContract } from './workflows.contract.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';

const url = testDatabaseUrl();
const reachable = await postgresReachable('PostgreSQL workflows contract');
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

if (!reachable) {
  describe.skip('workflows port contract: postgres (no server reachable)', () => it('skipped', () => undefined));
} else {
  describeWorkflowEngineContract('postgres', async () => {
    const schema = uniqueSchema('sello_wf');
    schemas.push(schema);
    return {
      async open(clock) {
        return createPostgresWorkflowEngine({ connectionString: url, schema, clock, pollIntervalMs: 10 });
      },
      async dispose() {},
    };
  });
}
