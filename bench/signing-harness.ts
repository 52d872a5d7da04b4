/**
 * What the signing benchmarks share: percentiles, a text PDF of N A4 pages, and an in-process API server
 * on a fresh DATA_DIR with a funded enterprise tenant and a key (the service's signing identity generated
 * before any timing).
 */
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildApp, type ApiApp } from '../apps/api/app.ts';
import { loadConfig } from '../apps/api/config.ts';
import { createPlatform, type Platform } from '../apps/platform/platform.ts';
import { createApiKey, createTenant } from '../domain/tenancy/operations.ts';

/** The `p`-th percentile (0-100) of `xs` by the nearest-rank method (`xs` not modified). */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** A PDF of `pages` A4 pages with 40 lines of Helvetica text each (`line` gives a line's text). */
export async function makeTextPdf(pages: number, line: (page: number, l: number) => string = (p, l) => `Page ${p}, clause ${l}: the parties agree to the terms described in this document.`): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const p = doc.addPage([595.28, 841.89]);
    for (let l = 0; l < 40; l++) p.drawText(line(i + 1, l + 1), { x: 40, y: 800 - l * 19, size: 10, font });
  }
  return doc.save();
}

/** A benchmark's API server (see the module comment). */
export interface BenchServer {
  dir: string;
  ctx: Platform;
  app: ApiApp;
  /** `http://127.0.0.1:<port>` */
  base: string;
  tenantId: string;
  key: string;
  /** `{authorization: 'Bearer <key>'}` */
  auth: Record<string, string>;
  /** Stops the server and the platform, and removes the DATA_DIR. */
  close(): Promise<void>;
}

/**
 * Starts the API in-process on a free loopback port: embedded profile, one worker thread, silent logs
 * (`logLevel` to see warnings), `config` added to the configuration (env-style names).
 */
export async function startBenchServer(name: string, config: Record<string, unknown> = {}, logLevel = 'silent'): Promise<BenchServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `sello-${name}-bench-`));
  const cfg = loadConfig({}, { DATA_DIR: dir, PORT: 0, HOST: '127.0.0.1', LOG_LEVEL: 'silent', BOOTSTRAP: 'false', WORKER_THREADS: 1, ...config });
  const ctx = await createPlatform(cfg, { kind: 'api', overrides: { log: pino({ level: logLevel }) } });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const { tenantId } = await createTenant({ store: ctx.events, name: 'bench', plan: 'enterprise' });
  const { key } = await createApiKey({ store: ctx.events, tenantId, permissions: ['read', 'write'] });
  await ctx.tenancy.catchUp();
  await ctx.credits.grant(tenantId, 100_000);
  ctx.secrets.signingIdentity(); // generated once, outside the timings
  return {
    dir,
    ctx,
    app,
    base,
    tenantId,
    key,
    auth: { authorization: `Bearer ${key}` },
    async close() {
      await app.close();
      await ctx.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
