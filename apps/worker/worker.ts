/**
 * Inference thread entry (a `worker_threads` worker of an API process's pool, or of a worker process's).
 * It builds the platform like every process (`createPlatform(config, { kind: 'inference' })`: ports are
 * opened only if a job uses one), then receives `{ type, input }`, runs the handler for `type` (derived from the capability
 * manifests, `./handlers.ts`), and answers with an envelope so coded domain errors (`code`, `details`)
 * survive the thread boundary intact. The validated configuration arrives as `workerData.config` (the
 * job-queue factory passes it); a worker started without it reads the environment.
 */
import { failureEnvelope, type FailureEnvelope } from './envelope.ts';
import { workerData } from 'node:worker_threads';
import { loadConfig, type Config } from '../api/config.ts';
import { createPlatform } from '../platform/platform.ts';
import { createHandlerTable } from './handlers.ts';

export type JobEnvelope =
  | { ok: true; result: unknown }
  | FailureEnvelope;

const data = workerData as { config?: Config } | null | undefined;
const platform = await createPlatform(data?.config ?? loadConfig(), { kind: 'inference' });
const resolveHandler = createHandlerTable(platform);

export default async function runJob(task: { type: string; input: unknown }): Promise<JobEnvelope> {
  try {
    const handler = await resolveHandler(task.type);
    return { ok: true, result: await handler(task.input as never) };
  } catch (error) {
    return failureEnvelope(error);
  }
}
