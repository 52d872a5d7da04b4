/**
 * Signing on Temporal across restarts, with real processes (issue 27): API processes
 * (`apps/api/server.ts`, WORKFLOWS=temporal, embedded SQLite for everything else, mail to the outbox
 * folder) on a Temporal development server of this file's own whose state is a database file.
 *
 * One two-signer document, in order:
 * 1. API process A creates it; its `signing-lifecycle` workflow carries what an operator looks for
 *    (workflow id = document id, search attribute SelloTenantId, memo `description`), and no personal data.
 * 2. A timer survives a Temporal restart, and fires. The product's timers are days away (reminder_days is
 *    a whole number of days, expiry_date a whole day), so the timer that comes due within the test is the
 *    lifecycle's own retry timer: the first invitation fails (the outbox path is a file, as a full or
 *    read-only disk would make it), the process manager arms its 5 s retry timer, the Temporal server is
 *    stopped before it is due and kept down until after, the outbox is repaired, the server started again
 *    on the same database file: the timer fires and the invitation lands. The day-long timers (reminder,
 *    expiry) are checked in the workflow's history only: started before the restart, still neither fired
 *    nor cancelled after it, with their original durations. That they would fire in a day is not waited for.
 * 3. Process A is killed (SIGKILL, its Temporal worker dies with it) right after the first signature; a
 *    new process B on the same DATA_DIR and task queue invites the second signer, who signs; the webhooks
 *    `document.signed` x2 and `document.completed` reach a subscribed HTTPS endpoint; finalize completes
 *    the document and its workflow. The product sends no e-mail on completion (only the webhook).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { cli, freePort, startProcess, waitFor as waitUntil, type Proc } from '../helpers/processes.ts';
import { startTemporalDevServer, temporalCliPath, type TestTemporalServer } from '../helpers/temporal.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../helpers/signing.ts';
import { makeCertificate, startReceiver, type TestCertificate, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const temporalCli = temporalCliPath('signing on Temporal across restarts');
const SELLO_TENANT = defineSearchAttributeKey('SelloTenantId', SearchAttributeType.KEYWORD);
const SIGNERS = [
  { email: 'one@example.com', name: 'Uno Primero', order: 1 },
  { email: 'two@example.com', name: 'Dos Segundo', order: 2 },
];

interface TimerRecord {
  timerId: string;
  /** The engine's summary: `timer expiry`, `timer reminder`, `timer retry:notify-…`. */
  summary: string;
  startedAt: number;
  fireAfterMs: number;
  firedAt?: number;
  cancelled?: boolean;
}

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

describe.skipIf(!temporalCli)('signing lifecycle on Temporal: API process killed, Temporal server restarted', () => {
  const root = mkdtempSync(join(tmpdir(), 'sello-temporal-restart-'));
  const dataDir = join(root, 'data');
  let temporal: TestTemporalServer;
  let connection: Connection;
  let client: Client;
  let cert: TestCertificate;
  let rx: WebhookReceiver;
  let env: Record<string, string>;
  let base: string;
  let auth: Record<string, string>;
  let tenantId: string;
  let docId: string;
  const procs: Proc[] = [];
  let api: Proc;

  async function startApi(): Promise<Proc> {
    const p = startProcess('apps/api/server.ts', env);
    procs.push(p);
    await waitUntil(() => {
      if (p.child.exitCode !== null) throw new Error(`API process exited:\n${p.output()}`);
      return p.output().includes('is listening');
    }, 180_000, 'API process listening').catch((e: Error) => {
      throw new Error(`${e.message}\n${p.output().slice(-3000)}`);
    });
    return p;
  }

  /** Every timer of the document's workflow, from its history. */
  async function timers(): Promise<TimerRecord[]> {
    const history = await client.workflow.getHandle(docId).fetchHistory();
    const byId = new Map<string, TimerRecord>();
    for (const e of history.events ?? []) {
      if (e.timerStartedEventAttributes) {
        const a = e.timerStartedEventAttributes;
        const summary = e.userMetadata?.summary ? String(defaultPayloadConverter.fromPayload(e.userMetadata.summary as never)) : '';
        byId.set(a.timerId!, { timerId: a.timerId!, summary, startedAt: ms(e.eventTime), fireAfterMs: ms(a.startToFireTimeout) });
      } else if (e.timerFiredEventAttributes) byId.get(e.timerFiredEventAttributes.timerId!)!.firedAt = ms(e.eventTime);
      else if (e.timerCanceledEventAttributes) byId.get(e.timerCanceledEventAttributes.timerId!)!.cancelled = true;
    }
    return [...byId.values()];
  }
  /** The workflow's activities so far, from its history: `signing.notify (notify-5-sgr_…): completed`. */
  async function activities(): Promise<string[]> {
    const history = await client.workflow.getHandle(docId).fetchHistory();
    const byEvent = new Map<string, { name: string; state: string }>();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      // Temporal records an attempt's start with its outcome: until then it reads as scheduled (or running).
      if (a) byEvent.set(String(e.eventId), { name: `${a.activityType?.name} (${a.activityId})`, state: 'scheduled or running' });
      const outcome: [string, { scheduledEventId?: unknown } | null | undefined][] = [
        ['started', e.activityTaskStartedEventAttributes],
        ['completed', e.activityTaskCompletedEventAttributes],
        ['failed', e.activityTaskFailedEventAttributes],
        ['timed out', e.activityTaskTimedOutEventAttributes],
      ];
      for (const [state, attrs] of outcome) if (attrs) byEvent.get(String(attrs.scheduledEventId))!.state = state;
    }
    return [...byEvent.values()].map((a) => `${a.name}: ${a.state}`);
  }
  /** How many signals the workflow has received. */
  async function signals(): Promise<number> {
    const history = await client.workflow.getHandle(docId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  }
  const pending = (ts: TimerRecord[]) => ts.filter((t) => t.firedAt === undefined && !t.cancelled);

  async function sign(link: string): Promise<number> {
    const id = /\/sign\/(doc_[0-9a-f]{24})/.exec(link)![1]!;
    const t = new URL(base + link).searchParams.get('t')!;
    const r = await fetch(`${base}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Firma' }).toString() });
    return r.status;
  }
  const getDoc = async () => ((await (await fetch(`${base}/v1/signing/documents/${docId}`, { headers: auth })).json()) as { data: { status: string; signers: { status: string }[]; audit_trail: { event: string }[] } }).data;
  /** The outbox's mails to `email` (none while the outbox path is a file). */
  const mailsTo = (email: string) => {
    try {
      return readOutbox(dataDir).filter((m) => m.to.includes(email));
    } catch {
      return [];
    }
  };
  /** Every payload of the workflow's history (inputs, signals, results, memo), decoded. */
  async function historyPayloads(): Promise<string> {
    const out: string[] = [];
    const walk = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      if (v instanceof Uint8Array) return void out.push(Buffer.from(v).toString('utf8'));
      for (const x of Object.values(v)) walk(x);
    };
    walk(await client.workflow.getHandle(docId).fetchHistory());
    return out.join('\n');
  }

  beforeAll(async () => {
    temporal = await startTemporalDevServer(temporalCli!, { dbFile: join(root, 'temporal.db') });
    connection = await Connection.connect({ address: temporal.address });
    client = new Client({ connection });
    cert = await makeCertificate();
    rx = await startReceiver(cert);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: base,
      BOOTSTRAP: 'false',
      LOG_LEVEL: 'warn',
      WORKER_THREADS: '1',
      WORKFLOWS: 'temporal',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `signing-restart-${process.pid}-${Date.now()}`,
      // Embedded everywhere else, whatever the shell exports for the scaled-out tests.
      EVENT_STORE: 'sqlite',
      READ_MODELS: 'sqlite',
      DATABASE_URL: '',
      JOB_QUEUE: 'worker-threads',
      BLOB_STORE: 'local',
      MAIL: 'outbox',
      SMTP_URL: '',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
      WEBHOOK_CA_CERTS: cert.certFile,
      WEBHOOK_TIMEOUT_MS: '5000',
    };
    tenantId = String((await cli(['tenant', 'create', '--name', 'Temporal restart', '--plan', 'pro'], env)).tenant_id);
    const key = String((await cli(['key', 'create', '--tenant', tenantId, '--permissions', 'read,write'], env)).key);
    auth = { authorization: `Bearer ${key}` };
  }, 300_000);

  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await connection?.close();
    await temporal?.stop();
    await rx?.close();
    cert?.dispose();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('process A creates the document; its workflow carries the operator metadata and no personal data', async () => {
    api = await startApi();
    const hook = await fetch(`${base}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${rx.origin}/signing`, events: ['document.signed', 'document.completed'] }),
    });
    expect(hook.status).toBe(201);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(2))], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', 'Contrato en Temporal');
    form.set('signers', JSON.stringify(SIGNERS));
    const created = await fetch(`${base}/v1/signing/documents`, { method: 'POST', body: form, headers: auth });
    expect(created.status).toBe(201);
    docId = ((await created.json()) as { data: { document_id: string } }).data.document_id;

    const handle = client.workflow.getHandle(docId); // workflow id = document id
    const d = await waitFor(() => handle.describe().catch(() => null), 60_000, 'signing workflow started');
    expect(d.type).toBe('signing-lifecycle');
    expect(d.taskQueue).toBe(env.TEMPORAL_TASK_QUEUE);
    expect(d.status.name).toBe('RUNNING');
    expect(d.typedSearchAttributes.get(SELLO_TENANT)).toBe(tenantId);
    expect(d.memo?.description).toBe(`Signing lifecycle of document ${docId}: invitations, reminders, expiry`);
    expect(await d.staticSummary()).toBe(d.memo?.description);
    // What an operator types in the Temporal UI's search box finds it (visibility is eventually consistent).
    await waitFor(async () => {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query: `SelloTenantId = '${tenantId}'` })) ids.push(w.workflowId);
      return ids.includes(docId);
    }, 30_000, 'workflow listed by SelloTenantId');
    const described = JSON.stringify(d.memo);
    for (const s of SIGNERS) {
      expect(described).not.toContain(s.email);
      expect(described).not.toContain(s.name);
    }
  }, 300_000);

  it('a retry timer due while the Temporal server is down fires after it restarts on the same database; the day-long timers are still there', async () => {
    // The first invitation fails: the outbox folder's path is taken by a file (mkdir: EEXIST).
    const outbox = join(dataDir, 'outbox');
    rmSync(outbox, { recursive: true, force: true });
    writeFileSync(outbox, 'not a folder');
    const sent = await fetch(`${base}/v1/signing/documents/${docId}/send-invitations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ reminder_days: 1 }) });
    expect(sent.status).toBe(200);
    const armed = await waitFor(async () => {
      const ts = await timers();
      const retry = ts.find((t) => t.summary.startsWith('timer retry:notify-'));
      return retry ? { ts, retry } : null;
    }, 60_000, 'retry timer of the failed invitation');
    expect(armed.retry.fireAfterMs).toBe(5_000); // the process manager's first retry delay
    const dayLong = pending(armed.ts).filter((t) => t.summary === 'timer reminder' || t.summary === 'timer expiry');
    expect(dayLong.map((t) => t.summary).sort()).toEqual(['timer expiry', 'timer reminder']);
    expect(dayLong.find((t) => t.summary === 'timer reminder')!.fireAfterMs).toBe(86_400_000);
    expect(mailsTo('one@example.com')).toHaveLength(0);

    // Down before the retry is due, and kept down until after it.
    await temporal.stop();
    const downAt = Date.now();
    expect(downAt).toBeLessThan(armed.retry.startedAt + armed.retry.fireAfterMs);
    rmSync(outbox, { force: true }); // repaired while the server is down
    await new Promise((r) => setTimeout(r, Math.max(0, armed.retry.startedAt + armed.retry.fireAfterMs + 2_000 - Date.now())));
    await temporal.start();
    const upAt = Date.now();

    // The timer fires after the restart; the retried invitation lands (process A's worker reconnected).
    const mail = await waitFor(() => mailsTo('one@example.com')[0], 120_000, 'invitation after the restart');
    expect(linkOf(mail)).toMatch(new RegExp(`^/sign/${docId}\\?t=`));
    const after = await timers();
    const retry = after.find((t) => t.timerId === armed.retry.timerId)!;
    // Fired by the restarted server (nothing answered between downAt and upAt), once due.
    expect(retry.firedAt).toBeGreaterThan(downAt);
    expect(retry.firedAt).toBeGreaterThanOrEqual(armed.retry.startedAt + armed.retry.fireAfterMs);
    // The day-long timers: same timers (ids, start, duration), neither fired nor cancelled.
    for (const t of dayLong) expect(pending(after)).toContainEqual(t);
    expect(api.child.exitCode).toBeNull();
    console.log(`Temporal server down ${((upAt - downAt) / 1000).toFixed(1)} s; retry timer due ${((armed.retry.startedAt + armed.retry.fireAfterMs - downAt) / 1000).toFixed(1)} s after the stop, fired ${((retry.firedAt! - upAt) / 1000).toFixed(1)} s after the start`);
  }, 300_000);

  it('process A is killed after the first signature; process B invites the second signer, publishes the webhooks, and the document completes', async () => {
    const signalsBefore = await signals();
    expect(await sign(linkOf(mailsTo('one@example.com')[0]!))).toBe(200);
    // Killed once the workflow has recorded the signature's signal, i.e. while A's worker is deciding on it
    // or running what it decided (the second invitation, the webhook): no graceful shutdown, its worker,
    // activities in flight and permits die with it.
    await waitFor(async () => (await signals()) > signalsBefore, 30_000, 'signature signalled to the workflow');
    api.kill('SIGKILL');
    expect(await api.exited).toBe('SIGKILL');
    // What A left behind depends on timing (activities not started, in flight or done).
    console.log(`at the kill, the workflow's activities were:\n  ${(await activities()).join('\n  ')}`);

    api = await startApi();
    const m2 = await waitFor(() => mailsTo('two@example.com').at(-1), 180_000, 'second invitation from process B');
    expect(await sign(linkOf(m2))).toBe(200);
    const signed = await waitFor(async () => ((await getDoc()).status === 'signed' ? getDoc() : null), 30_000, 'document signed');
    expect(signed.signers.map((s) => s.status)).toEqual(['signed', 'signed']);

    const hooks = await waitFor(() => {
      const bodies = rx.requests.filter((r) => r.path === '/signing').map((r) => JSON.parse(r.body.toString()) as { type: string; data: { document_id: string } });
      return bodies.filter((b) => b.type === 'document.signed').length >= 2 && bodies.some((b) => b.type === 'document.completed') ? bodies : null;
    }, 180_000, 'document.signed x2 and document.completed delivered');
    for (const h of hooks) expect(h.data.document_id).toBe(docId);
    const signedBy = hooks.filter((h) => h.type === 'document.signed').map((h) => (h.data as unknown as { signer: { email: string } }).signer.email);
    expect(new Set(signedBy)).toEqual(new Set(SIGNERS.map((s) => s.email)));
    // At least once: a webhook activity interrupted by the kill may have published before it died.
    console.log(`webhook deliveries: ${hooks.length} (${hooks.map((h) => h.type).join(', ')})`);

    const fin = await fetch(`${base}/v1/signing/documents/${docId}/finalize`, { method: 'POST', headers: auth });
    expect(fin.status).toBe(200);
    const done = await waitFor(async () => {
      const d = await client.workflow.getHandle(docId).describe();
      return d.status.name === 'COMPLETED' ? d : null;
    }, 60_000, 'signing workflow completed');
    expect(done.status.name).toBe('COMPLETED');

    console.log(`at completion:\n  ${(await activities()).join('\n  ')}`);
    const trail = (await getDoc()).audit_trail.map((e) => e.event);
    expect(trail.filter((e) => e === 'invitations_sent')).toHaveLength(2);
    expect(trail.filter((e) => e === 'document_signed')).toHaveLength(2);
    expect(trail).toContain('document_completed');
    expect(trail.at(-1)).toBe('document_finalized');
    // The first signer was mailed once: the failed attempt wrote nothing, the retry once.
    expect(mailsTo('one@example.com')).toHaveLength(1);
    // No personal data in the workflow's history (ids only travel in signals and activity inputs).
    const payloads = await historyPayloads();
    expect(payloads).toContain(docId);
    for (const s of SIGNERS) {
      expect(payloads).not.toContain(s.email);
      expect(payloads).not.toContain(s.name);
    }
  }, 600_000);
});
