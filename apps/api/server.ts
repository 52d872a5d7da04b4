/**
 * `npm start`: the HTTP edge with the embedded adapters (no servers needed), configured from the
 * environment (apps/api/config.ts). Prints where it listens and, on the first start, a test API key.
 */
import { buildApp } from './app.ts';
import { bootstrapIfEmpty } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { createPlatform } from '../platform/platform.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
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

const address = await app.listen({ port: config.PORT, host: config.HOST });
const port = (app.server.address() as { port: number }).port;
const lines = [``, `Sello is listening on ${address} (http://localhost:${port})`, `  API reference: http://localhost:${port}/docs  (OpenAPI: /openapi.json)`, `  Data directory: ${config.DATA_DIR}`];
if (first) {
  lines.push(
    ``,
    `  First start: created tenant ${first.tenantId} (Free plan) and a test API key (read,write).`,
    `  It is shown only this once; keep it:`,
    ``,
    `    ${first.key}`,
    ``,
    `  Try: curl -H "Authorization: Bearer ${first.key}" http://localhost:${port}/v1/credits/balance`,
  );
} else {
  lines.push(`  Get an API key: npm run cli -- tenant create --name NAME --plan free, then npm run cli -- key create --tenant ID --permissions read,write`);
}
process.stdout.write(`${lines.join('\n')}\n\n`);
