import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp, type ApiApp } from '../../apps/api/app.ts';
import { loadConfig, type Config } from '../../apps/api/config.ts';
import { createPlatform, type Platform, type PlatformOverrides } from '../../apps/platform/platform.ts';
import { createApiKey, createTenant, setTenantLimits } from '../../domain/tenancy/operations.ts';
import type { PlanName } from '../../domain/plans/plans.ts';
import type { Permission } from '../../domain/tenancy/api-key.ts';

export interface TestServer {
  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  app: ApiApp;
  ctx: Platform;
  dataDir: string;
  /** Creates a tenant (default plan pro) and returns its id. */
  createTenant(plan?: PlanName, name?: string): Promise<string>;
  /** Issues a key (default read,write) and waits until the server accepts it. */
  createKey(tenantId: string, permissions?: Permission[], test?: boolean): Promise<{ key: string; keyId: string }>;
  /** A new tenant on `plan` with a read,write key: the usual start of an API test. */
  tenantWithKey(plan?: PlanName, permissions?: Permission[]): Promise<{ tenantId: string; key: string; keyId: string }>;
  /** Lifts (null) or sets the tenant's per-minute and concurrency limits. */
  setLimits(tenantId: string, rpm: number | null | undefined, concurrency: number | null | undefined): Promise<void>;
  /** Adds purchased credits. */
  grant(tenantId: string, amount: number): Promise<void>;
  /** fetch with `Authorization: Bearer key`. */
  fetch(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Configuration overrides (env-style names). */
  config?: Partial<Record<keyof Config, unknown>>;
  /** Port adapters to use instead of the embedded defaults (e.g. another event store). */
  overrides?: PlatformOverrides;
  /** Registers extra routes before the server listens (e.g. a priced test route). */
  extend?: (app: ApiApp, ctx: Platform) => void | Promise<void>;
  /** An existing DATA_DIR to open (a restart); it is kept at close. Default: a fresh one, removed at close. */
  dataDir?: string;
}

/**
 * Starts the real server on a free loopback port with a fresh DATA_DIR (embedded adapters, SQLite),
 * no bootstrap tenant, silent logs and two worker threads.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sello-test-'));
  const config = loadConfig({}, { DATA_DIR: dataDir, PORT: 0, HOST: '127.0.0.1', LOG_LEVEL: 'silent', BOOTSTRAP: 'false', WORKER_THREADS: 2, SELLO_PRIVACY_STRICT: process.env.SELLO_PRIVACY_STRICT ?? '0', ...options.config });
  const ctx = await createPlatform(config, { kind: 'api', overrides: { log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), ...options.overrides } });
  const app = await buildApp(ctx, options.extend ? (a) => options.extend!(a, ctx) : undefined);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const server: TestServer = {
    url,
    app,
    ctx,
    dataDir,
    async createTenant(plan = 'pro', name = 'Test tenant') {
      const { tenantId } = await createTenant({ store: ctx.events, name, plan });
      await ctx.tenancy.catchUp();
      return tenantId;
    },
    async createKey(tenantId, permissions = ['read', 'write'], test = false) {
      const r = await createApiKey({ store: ctx.events, tenantId, permissions, test });
      await ctx.tenancy.catchUp();
      return r;
    },
    async tenantWithKey(plan = 'pro', permissions = ['read', 'write']) {
      const tenantId = await server.createTenant(plan);
      const { key, keyId } = await server.createKey(tenantId, permissions);
      return { tenantId, key, keyId };
    },
    async setLimits(tenantId, rpm, concurrency) {
      await setTenantLimits({ store: ctx.events, tenantId, requestsPerMinute: rpm, concurrentRequests: concurrency });
      await ctx.tenancy.catchUp();
    },
    async grant(tenantId, amount) {
      await ctx.credits.grant(tenantId, amount);
    },
    fetch(path, init = {}) {
      const { key, headers, ...rest } = init;
      const h = new Headers(headers);
      if (key) h.set('authorization', `Bearer ${key}`);
      return fetch(`${url}${path}`, { ...rest, headers: h });
    },
    async close() {
      await app.close();
      await ctx.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Fields of a multipart upload: strings as text fields, bytes as files named `<field>.<fileExtension>`. */
export type FormFields = Record<string, string | Buffer | Uint8Array>;

/** A `FormData` body from {@link FormFields} (the file names carry no meaning: formats are judged by content). */
export function multipartForm(fields: FormFields, fileExtension = 'bin'): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') f.set(k, v);
    else f.set(k, new Blob([new Uint8Array(v)]), `${k}.${fileExtension}`);
  }
  return f;
}

/**
 * JSON calls against a test server with a key: `post` sends a multipart form, `get` and `del` nothing.
 * Each answers `{ status, body }` (`post` also the headers). `server` is read at call time, so it may be
 * assigned in `beforeAll`.
 */
export function jsonCalls(server: () => TestServer, fileExtension = 'bin') {
  return {
    async post(key: string, url: string, fields: FormFields) {
      const r = await server().fetch(url, { method: 'POST', key, body: multipartForm(fields, fileExtension) });
      return { status: r.status, body: await r.json(), headers: r.headers };
    },
    async get(key: string, url: string) {
      const r = await server().fetch(url, { key });
      return { status: r.status, body: await r.json() };
    },
    async del(key: string, url: string) {
      const r = await server().fetch(url, { method: 'DELETE', key });
      return { status: r.status, body: await r.json() };
    },
  };
}
