/**
 * `npm start`: the HTTP edge with the embedded adapters (no servers needed), configured from the
 * environment (apps/api/config.ts). Listens on 127.0.0.1 unless HOST says otherwise; prints the addresses
 * it bound and, on the first start, a test API key. SIGTERM and SIGINT close it gracefully (`npm start`
 * runs it with `exec`, so npm's forwarded signal reaches this process, not an intermediate shell).
 */
import { buildApp } from './app.ts';
import { bootstrapIfEmpty } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { createPlatform } from '../platform/platform.ts';
import { bannerLines } from './banner.ts';
import type { AddressInfo } from 'node:net';
import { recordListenOrigin } from './listen-address.ts';
import { boundOrigin } from './public-origin.ts';
import { sharedMasterKeyProblem } from '../../infra/secrets/index.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
// A shared event store without one master key for every process: refuse before anything is opened.
const keyProblem = sharedMasterKeyProblem(config);
if (keyProblem) {
  process.stderr.write(`refusing to start: ${keyProblem}\n`);
  process.exit(1);
}

const ctx = await createPlatform(config, { kind: 'api' });
const first = config.BOOTSTRAP ? await bootstrapIfEmpty(ctx.events) : null;
if (first) await ctx.tenancy.catchUp();
const app = await buildApp(ctx);
app.server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
app.server.headersTimeout = 30_000;

let closing = false;
const shutdown = async (signal: string) => {
  if (closing) return;
  closing = true;
  ctx.log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await app.close();
  await ctx.close();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen({ port: config.PORT, host: config.HOST });
// What was bound, not what was asked: HOST=0.0.0.0 says "every network interface", localhost both loopbacks.
// (Fastify types `addresses()` as string | AddressInfo: a string is a pipe's path, never used here.)
const bound = app.addresses().filter((a): a is AddressInfo => typeof a !== 'string');
process.stdout.write(`${bannerLines(bound, config.DATA_DIR, first).join('\n')}\n\n`);
// For operator commands run later in another shell (`cli dashboard link`): the address really bound.
const recorded = recordListenOrigin(config.DATA_DIR, boundOrigin(config, bound[0]));
if (recorded) ctx.log.warn({ err: recorded }, 'could not record the listening address in DATA_DIR');
