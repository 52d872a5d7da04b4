/**
 * Usage exports (issue 14): an export is an aggregate on `usage-export-<exportId>`, driven by the
 * `usage-export` workflow (workflows/usage-exports): requested -> progressed* -> completed | failed,
 * then expired when the plan's export history (spec, Limits: 7, 30, 90, 365 days) has passed and the
 * durable timer deleted its file.
 */
import { PLANS, type PlanName } from '../plans/plans.ts';

export type ExportFormat = 'csv' | 'jsonl';

export type UsageExportRequested = {
  type: 'UsageExportRequested';
  data: {
    export_id: string;
    tenant_id: string;
    format: ExportFormat;
    /** Inclusive bounds, ISO 8601. */
    start: string;
    end: string;
    include_details: boolean;
    email_to: string | null;
    requested_at: string;
    /** Estimated rows (from the rollups) for the progress and `estimated_completion`. */
    estimated_rows: number;
  };
};
export type UsageExportProgressed = { type: 'UsageExportProgressed'; data: { export_id: string; tenant_id: string; rows: number; percent: number; at: string } };
export type UsageExportCompleted = {
  type: 'UsageExportCompleted';
  data: { export_id: string; tenant_id: string; rows: number; bytes: number; blob_key: string; completed_at: string; expires_at: string };
};
export type UsageExportFailed = { type: 'UsageExportFailed'; data: { export_id: string; tenant_id: string; reason: string; failed_at: string } };
export type UsageExportExpired = { type: 'UsageExportExpired'; data: { export_id: string; tenant_id: string; expired_at: string } };
export type UsageExportEvent = UsageExportRequested | UsageExportProgressed | UsageExportCompleted | UsageExportFailed | UsageExportExpired;
export const EXPORT_EVENT_TYPES = ['UsageExportRequested', 'UsageExportProgressed', 'UsageExportCompleted', 'UsageExportFailed', 'UsageExportExpired'] as const;

export const exportStream = (exportId: string) => `usage-export-${exportId}`;

/** Days an export file is kept (spec, Limits: export history). */
export const exportHistoryDays = (plan: PlanName): number => PLANS[plan].exportHistoryDays;

/**
 * Exports a tenant may request per rolling 24 hours (the spec names `export_quota_exceeded` but not the
 * number): Free 5, Basic 20, Pro 50, Enterprise 200.
 */
export const EXPORT_DAILY_QUOTA: Record<PlanName, number> = { free: 5, basic: 20, pro: 50, enterprise: 200 };

/** Longest range of one export, days (a year and a day, the longest history). */
export const MAX_EXPORT_DAYS = 366;

/** Rows per second assumed for `estimated_completion` (measured: bench/usage-export.bench.ts). */
export const EXPORT_ROWS_PER_SECOND = 50_000;

/** Columns of the export: the stats record; with `include_details` also the caller's address, agent, key and request. */
export const EXPORT_COLUMNS = ['id', 'created_at', 'endpoint', 'method', 'status_code', 'response_time', 'request_size', 'response_size', 'credits_charged'] as const;
export const EXPORT_DETAIL_COLUMNS = ['ip_address', 'user_agent', 'key_id', 'request_id'] as const;
