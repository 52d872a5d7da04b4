/**
 * Usage exports: the request command (quota, range checks, the `usage-export` workflow started with the
 * export id), the activities (stream rows from the read models into CSV or JSON lines in the blob store,
 * record completion and e-mail, delete on expiry), and the signed, expiring download links.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import type { Activity, Clock, RegisteredProcessManager, WorkflowEngine } from '../../infra/ports/workflows.ts';
import { bindProcessManager } from '../../infra/ports/workflows.ts';
import {
  EXPORT_COLUMNS,
  EXPORT_DAILY_QUOTA,
  EXPORT_DETAIL_COLUMNS,
  EXPORT_ROWS_PER_SECOND,
  MAX_EXPORT_DAYS,
  exportHistoryDays,
  exportStream,
  type ExportFormat,
  type UsageExportEvent,
} from '../../domain/usage/exports.ts';
import { UTF8_BOM, csvRow } from '../../domain/usage/csv.ts';
import { UsageError } from '../../domain/usage/errors.ts';
import type { PlanName } from '../../domain/plans/plans.ts';
import { iso, parseUsageDate } from '../../domain/usage/time.ts';
import { usageEventsCollection, type UsageRecord } from '../../projections/usage-events/usage-events.ts';
import { ALL_ENDPOINTS, usageCollections } from '../../projections/usage-analytics/model.ts';
import { rangeStatistics } from '../../projections/usage-analytics/queries.ts';
import { exportsCollection, type ExportDoc } from '../../projections/usage-exports/index.ts';
import { EXPORT_ACTIVITIES, exportProcess, type ExportInput, type WriteResult } from './process.ts';

/** Rows fetched per read-model query while exporting (bounds the memory of an export). */
export const EXPORT_PAGE_ROWS = 5_000;
/** Lifetime of the download link returned by `GET /v1/usage/export/{id}`. */
export const DOWNLOAD_LINK_SECONDS = 3_600;

export interface UsageExportsDeps {
  events: EventStore;
  readModels: ReadModelStore;
  blobs: BlobStore;
  engine: WorkflowEngine;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  catchUp: () => Promise<void>;
  /** Key of the download-link HMAC (derived from the service's secret key, never stored). */
  linkKey: Buffer;
  mailFrom: string;
  /** Base URL of links in e-mails (PUBLIC_BASE_URL, or the server's own address). */
  publicBaseUrl: () => string;
}

export interface ExportRequest {
  format?: unknown;
  start_date?: unknown;
  end_date?: unknown;
  include_details?: unknown;
  email_to?: unknown;
}

/**
 * Streams the tenant's usage rows of [from, toExclusive) in time order, a bounded page at a time: the
 * hour rollups say which hours hold rows; a busy hour is read minute by minute, a busy minute by pages.
 */
export async function* usageRows(store: ReadModelStore, tenantId: string, from: number, toExclusive: number): AsyncGenerator<UsageRecord> {
  const cols = await usageCollections(store);
  const raw = await usageEventsCollection(store);
  const H = 3_600_000;
  const perBucket = async (grain: 'h' | 'm', a: number, b: number) => {
    const step = grain === 'h' ? H : 60_000;
    const rows = await cols.rollups.find({ tenant_id: tenantId, grain, endpoint: ALL_ENDPOINTS, bucket: { $gte: iso(Math.floor(a / step) * step), $lt: iso(b) } });
    const counts = new Map<number, number>();
    for (const r of rows) counts.set(Date.parse(r.bucket), (counts.get(Date.parse(r.bucket)) ?? 0) + r.calls);
    return [...counts].sort((x, y) => x[0] - y[0]);
  };
  const read = (a: number, b: number, offset = 0, limit?: number) =>
    raw.find({ tenant_id: tenantId, created_at: { $gte: iso(a), $lt: iso(b) } }, { sort: [{ field: 'created_at', order: 'asc' }], ...(limit ? { limit, offset } : {}) });
  // Quiet hours are read together: consecutive hours are merged into one query while their rows fit a page.
  let chunk: { a: number; b: number; n: number } | null = null;
  for (const [hour, n] of await perBucket('h', from, toExclusive)) {
    const a = Math.max(hour, from);
    const b = Math.min(hour + H, toExclusive);
    if (n <= EXPORT_PAGE_ROWS) {
      if (chunk && chunk.n + n <= EXPORT_PAGE_ROWS) {
        chunk.b = b;
        chunk.n += n;
        continue;
      }
      if (chunk) yield* await read(chunk.a, chunk.b);
      chunk = { a, b, n };
      continue;
    }
    if (chunk) yield* await read(chunk.a, chunk.b);
    chunk = null;
    for (const [minute, m] of await perBucket('m', a, b)) {
      const ma = Math.max(minute, a);
      const mb = Math.min(minute + 60_000, b);
      if (m <= EXPORT_PAGE_ROWS) {
        yield* await read(ma, mb);
        continue;
      }
      for (let offset = 0; ; offset += EXPORT_PAGE_ROWS) {
        const page = await read(ma, mb, offset, EXPORT_PAGE_ROWS);
        yield* page;
        if (page.length < EXPORT_PAGE_ROWS) break;
      }
    }
  }
  if (chunk) yield* await read(chunk.a, chunk.b);
}

/** The export's lines: a header then one record per row (CSV), or one JSON object per line (`jsonl`). */
export async function* exportLines(rows: AsyncIterable<UsageRecord>, format: ExportFormat, includeDetails: boolean, onRow?: () => void): AsyncGenerator<string> {
  const columns: readonly string[] = includeDetails ? [...EXPORT_COLUMNS, ...EXPORT_DETAIL_COLUMNS] : EXPORT_COLUMNS;
  let buffer = format === 'csv' ? UTF8_BOM + csvRow(columns) : '';
  for await (const r of rows) {
    const rec = r as Record<string, unknown>;
    buffer += format === 'csv' ? csvRow(columns.map((c) => rec[c])) : `${JSON.stringify(Object.fromEntries(columns.map((c) => [c, rec[c] ?? null])))}\n`;
    onRow?.();
    if (buffer.length >= 64 * 1024) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}

export interface UsageExports {
  request(tenantId: string, plan: PlanName, body: ExportRequest): Promise<ExportDoc>;
  get(tenantId: string, exportId: string): Promise<ExportDoc>;
  /** `?expires=<unix s>&signature=<hex>` of a download link valid until `expiresAtMs`. */
  signLink(exportId: string, expiresAtMs: number): string;
  /** The blob behind a valid link. @throws UsageError `invalid_download_link`, `export_not_available`. */
  open(exportId: string, expires: string, signature: string): Promise<{ doc: ExportDoc; stream: NodeJS.ReadableStream; bytes: number }>;
  processManagers: RegisteredProcessManager[];
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export function createUsageExports(deps: UsageExportsDeps): UsageExports {
  const now = () => deps.clock.now();
  const append = (e: UsageExportEvent) => deps.events.append(exportStream(e.data.export_id), [{ ...e, metadata: { tenant_id: e.data.tenant_id } }]);
  const hmac = (exportId: string, expires: number) => createHmac('sha256', deps.linkKey).update(`${exportId}.${expires}`).digest('hex');
  const signLink = (exportId: string, expiresAtMs: number) => {
    const expires = Math.floor(expiresAtMs / 1000);
    return `expires=${expires}&signature=${hmac(exportId, expires)}`;
  };

  async function load(exportId: string): Promise<ExportDoc | null> {
    return (await exportsCollection(deps.readModels)).get(exportId);
  }

  const activities: Record<string, Activity> = {
    [EXPORT_ACTIVITIES.write]: async (input: ExportInput): Promise<WriteResult> => {
      const doc = await load(input.export_id);
      if (!doc) throw new Error(`export ${input.export_id} not projected`);
      const from = Date.parse(doc.start);
      const toExcl = Date.parse(doc.end) + 1;
      const key = `${doc.tenant_id}/usage-exports/${doc.export_id}.${doc.format === 'csv' ? 'csv' : 'jsonl'}`;
      let rows = 0;
      let reported = 0;
      const progress: Promise<unknown>[] = [];
      const onRow = () => {
        rows += 1;
        const percent = doc.estimated_rows ? Math.min(99, Math.floor((rows / doc.estimated_rows) * 100)) : 0;
        if (percent >= reported + 10) {
          reported = percent;
          progress.push(append({ type: 'UsageExportProgressed', data: { export_id: doc.export_id, tenant_id: doc.tenant_id, rows, percent, at: iso(now()) } }));
        }
      };
      const { bytes } = await deps.blobs.putStream(key, exportLines(usageRows(deps.readModels, doc.tenant_id, from, toExcl), doc.format, doc.include_details, onRow), {
        contentType: doc.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
      });
      await Promise.all(progress);
      return { rows, bytes, blob_key: key };
    },
    [EXPORT_ACTIVITIES.finish]: async (input: ExportInput & { result: WriteResult; expires_at: number }) => {
      const doc = await load(input.export_id);
      await append({
        type: 'UsageExportCompleted',
        data: { export_id: input.export_id, tenant_id: input.tenant_id, rows: input.result.rows, bytes: input.result.bytes, blob_key: input.result.blob_key, completed_at: iso(now()), expires_at: iso(input.expires_at) },
      });
      if (doc?.email_to) {
        const url = `${deps.publicBaseUrl()}/v1/usage/export/${input.export_id}/download?${signLink(input.export_id, input.expires_at)}`;
        await deps.mailer
          .send({
            from: deps.mailFrom,
            to: { address: doc.email_to },
            subject: `Your usage export ${input.export_id} is ready`,
            text: `Your usage export (${doc.start} to ${doc.end}, ${input.result.rows} rows, ${input.result.bytes} bytes) is ready.\n\nDownload it until ${iso(input.expires_at)}:\n${url}\n`,
          })
          .catch((err: unknown) => deps.log.error({ err, export_id: input.export_id }, 'could not e-mail the export link'));
      }
      return { expires_at: input.expires_at };
    },
    [EXPORT_ACTIVITIES.fail]: async (input: ExportInput & { reason: string }) => {
      deps.log.error({ export_id: input.export_id, reason: input.reason }, 'usage export failed');
      await append({ type: 'UsageExportFailed', data: { export_id: input.export_id, tenant_id: input.tenant_id, reason: 'the export could not be written; request it again', failed_at: iso(now()) } });
      return null;
    },
    [EXPORT_ACTIVITIES.expire]: async (input: ExportInput) => {
      const doc = await load(input.export_id);
      if (doc?.blob_key) await deps.blobs.delete(doc.blob_key);
      await append({ type: 'UsageExportExpired', data: { export_id: input.export_id, tenant_id: input.tenant_id, expired_at: iso(now()) } });
      return null;
    },
  };

  return {
    async request(tenantId, plan, body) {
      const format = body.format === undefined ? 'csv' : body.format === 'json' || body.format === 'jsonl' ? 'jsonl' : body.format === 'csv' ? 'csv' : null;
      if (!format) throw new UsageError('invalid_parameter', "format must be 'csv' or 'json' (JSON lines)", { field: 'format', value: body.format ?? null });
      const details = { start_date: body.start_date ?? null, end_date: body.end_date ?? null };
      if (typeof body.start_date !== 'string' || typeof body.end_date !== 'string') throw new UsageError('invalid_date_range', 'start_date and end_date (YYYY-MM-DD) are required', details);
      const from = parseUsageDate(body.start_date);
      const to = parseUsageDate(body.end_date, true);
      if (from === null || to === null) throw new UsageError('invalid_date_range', 'start_date and end_date must be dates (YYYY-MM-DD) or ISO 8601 date-times', details);
      if (from > to) throw new UsageError('invalid_date_range', 'start_date is after end_date', details);
      if (to - from > MAX_EXPORT_DAYS * 86_400_000) throw new UsageError('invalid_date_range', `an export covers at most ${MAX_EXPORT_DAYS} days`, details);
      if (body.include_details !== undefined && typeof body.include_details !== 'boolean') throw new UsageError('invalid_parameter', 'include_details must be a boolean', { field: 'include_details' });
      const email = body.email_to ?? null;
      if (email !== null && (typeof email !== 'string' || !EMAIL.test(email) || email.length > 254)) throw new UsageError('invalid_parameter', 'email_to must be an e-mail address', { field: 'email_to' });

      const c = await exportsCollection(deps.readModels);
      const quota = EXPORT_DAILY_QUOTA[plan];
      const recent = await c.count({ tenant_id: tenantId, requested_at: { $gte: iso(now() - 86_400_000) } });
      if (recent >= quota) throw new UsageError('export_quota_exceeded', `at most ${quota} exports per 24 hours on the ${plan} plan`, { quota, window_hours: 24, plan });

      const estimated = (await rangeStatistics(deps.readModels, tenantId, from, to + 1, null)).calls;
      const exportId = `exp_${randomBytes(12).toString('hex')}`;
      await append({
        type: 'UsageExportRequested',
        data: { export_id: exportId, tenant_id: tenantId, format, start: iso(from), end: iso(to), include_details: body.include_details === true, email_to: email as string | null, requested_at: iso(now()), estimated_rows: estimated },
      });
      await deps.catchUp();
      await deps.engine.start(exportProcess.name, exportId, { export_id: exportId, tenant_id: tenantId, history_days: exportHistoryDays(plan) } satisfies ExportInput, {
        tenantId,
        summary: `Usage export ${exportId} (${format})`,
      });
      return (await load(exportId))!;
    },
    async get(tenantId, exportId) {
      const doc = await load(exportId);
      if (!doc || doc.tenant_id !== tenantId) throw new UsageError('export_not_found', `export ${exportId} not found`, { export_id: exportId });
      return doc;
    },
    signLink,
    async open(exportId, expires, signature) {
      const exp = /^\d{1,12}$/.test(expires) ? Number(expires) : NaN;
      const want = Number.isFinite(exp) ? Buffer.from(hmac(exportId, exp)) : Buffer.alloc(0);
      const got = Buffer.from(signature);
      if (!Number.isFinite(exp) || want.length !== got.length || !timingSafeEqual(want, got) || exp * 1000 < now()) {
        throw new UsageError('invalid_download_link', 'the download link is invalid or has expired; get a new one from GET /v1/usage/export/{export_id}');
      }
      const doc = await load(exportId);
      if (!doc || doc.status !== 'completed' || !doc.blob_key) throw new UsageError('export_not_available', 'the export file is not available (expired or not ready)', { export_id: exportId, status: doc?.status ?? null });
      const blob = await deps.blobs.getStream(doc.blob_key);
      if (!blob) throw new UsageError('export_not_available', 'the export file is not available', { export_id: exportId });
      return { doc, stream: blob.stream, bytes: blob.bytes };
    },
    processManagers: [bindProcessManager(exportProcess, activities)],
  };
}

/** `estimated_completion` of a request: now + estimated rows at the measured export rate (at least 1 s). */
export const estimatedCompletion = (doc: ExportDoc) => iso(Date.parse(doc.requested_at) + Math.max(1000, Math.ceil((doc.estimated_rows / EXPORT_ROWS_PER_SECOND) * 1000)));
