import { existsSync } from 'node:fs';
import { serverMissing } from './servers.ts';

/**
 * Temporal for tests: the Temporal CLI (`TEMPORAL_CLI_PATH`, whose `server start-dev` a test runs as a
 * server of its own) and the shared development server at `TEMPORAL_ADDRESS`, both from
 * `npm run engines -- up` (which prints them).
 */
/** The Temporal CLI binary, or null (skip, or throw where servers are required). */
export function temporalCliPath(what: string): string | null {
  const p = process.env.TEMPORAL_CLI_PATH;
  if (p && existsSync(p)) return p;
  serverMissing(what, `no Temporal CLI (TEMPORAL_CLI_PATH=${p ?? 'unset'})`);
  return null;
}

/** The shared development server's frontend address, when it answers (a TCP connect), else null. */
export async function temporalAddress(what: string): Promise<string | null> {
  const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  const [host, port] = address.split(':');
  const { connect } = await import('node:net');
  const ok = await new Promise<boolean>((resolve) => {
    const s = connect({ host, port: Number(port) });
    s.setTimeout(2000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
  if (ok) return address;
  serverMissing(what, `no Temporal server at ${address}`);
  return null;
}

/** A Temporal development server of a test's own (`temporal server start-dev`, headless, on free loopback ports). */
export interface TestTemporalServer {
  /** Frontend `127.0.0.1:port`. */
  address: string;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port and database file (what a restarted server finds). */
  start(): Promise<void>;
}

/**
 * Starts the CLI's development server with its state in `dbFile` (a file: it survives `stop`/`start`;
 * unset: in memory) and search attribute `SelloTenantId`. Resolves once the frontend answers RPCs.
 * @throws Error with the server's output when it does not come up within 60 s.
 */
export async function startTemporalDevServer(cli: string, options: { dbFile?: string } = {}): Promise<TestTemporalServer> {
  const { spawn } = await import('node:child_process');
  const { freePort } = await import('./processes.ts');
  const { Connection } = await import('@temporalio/client');
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  let child: import('node:child_process').ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    child = spawn(
      cli,
      ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(httpPort), '--metrics-port', String(metricsPort), '--headless', '--log-level', 'error', '--search-attribute', 'SelloTenantId=Keyword', ...(options.dbFile ? ['--db-filename', options.dbFile] : [])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const c = await Connection.connect({ address, connectTimeout: 1000 });
        await c.workflowService.describeNamespace({ namespace: 'default' });
        await c.close();
        return;
      } catch {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Temporal dev server on ${address} did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await start();
  return {
    address,
    start,
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Terminates the workflows still running on `taskQueue` (a test's own queue on the shared server, once its
 * workers are gone: what it left open, e.g. documents never finalized, would otherwise stay listed as
 * running in the UI). Returns how many.
 */
export async function terminateTaskQueue(address: string, taskQueue: string): Promise<number> {
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    let n = 0;
    for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
      await client.workflow.getHandle(w.workflowId, w.runId).terminate('test finished').catch(() => undefined);
      n++;
    }
    return n;
  } finally {
    await connection.close();
  }
}
