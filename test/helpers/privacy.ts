/**
 * Calls the privacy tests (test/api/privacy) share: image uploads retried on 503, JSON requests, and the
 * retention sweep driven by a manual clock.
 */
import type { TestServer } from './server.ts';
import { jsonCalls } from './server.ts';
import { ManualClock, eventually } from '../contract/workflows.contract.ts';
import type { RetentionState } from '../../workflows/privacy-retention/process.ts';
import { privacyRetentionCapability } from '../../apps/capabilities/privacy-retention.ts';

/**
 * {@link jsonCalls} with `.img` file names whose `post` retries a 503 (inference timed out on a loaded
 * 2-core machine: the API's "retry later") up to 5 attempts.
 */
export function imageCalls(server: () => TestServer) {
  const calls = jsonCalls(server, 'img');
  return {
    ...calls,
    async post(key: string, url: string, fields: Parameters<typeof calls.post>[2]) {
      for (let attempt = 1; ; attempt++) {
        const r = await calls.post(key, url, fields);
        if (r.status !== 503 || attempt === 5) return r;
      }
    },
  };
}

/**
 * A JSON request with a key (a JSON body when `body` is given): `{status, text, body}` where `body` is the
 * parsed answer, or null when it is not JSON.
 */
export function jsonRequests(server: () => TestServer) {
  return async (method: string, url: string, key: string, body?: unknown) => {
    const r = await server().fetch(url, { method, key, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    const text = await r.text();
    let parsed: any = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: r.status, text, body: parsed as any };
  };
}

/**
 * Flushes usage, moves `clock` by `ms` and waits (up to 60 s) until the daily retention sweep has run at
 * the new time, then lets the projections catch up.
 */
export async function advanceAndSweep(s: TestServer, clock: ManualClock, ms: number): Promise<void> {
  await s.ctx.usage.flush();
  await s.ctx.projections.catchUp();
  clock.advance(ms);
  const at = clock.now();
  await eventually(async () => {
    const wf = await s.ctx.workflows.get<RetentionState>(s.ctx.use(privacyRetentionCapability).workflowId);
    return wf !== null && wf.state.last_completed_at !== null && wf.state.last_completed_at >= at;
  }, 60_000);
  await s.ctx.projections.catchUp();
}
