import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { linkOrigin } from '../../public-origin.ts';
import { DOWNLOAD_LINK_SECONDS, estimatedCompletion, type ExportRequest, type UsageExports } from '../../../../workflows/usage-exports/service.ts';
import { EXPORT_DAILY_QUOTA } from '../../../../domain/usage/exports.ts';
import type { ExportDoc } from '../../../../projections/usage-exports/index.ts';
import { USAGE_ROUTE_CONFIG, USAGE_WRITE_ROUTE_CONFIG, mapUsageErrors, USAGE_ERROR_RESPONSES } from './common.ts';

const ExportBody = z.object({
  format: z.string().max(10).optional().describe('`csv` (default; RFC 4180, UTF-8 with BOM, formula cells neutralised) or `json` (JSON lines).').meta({ example: 'csv' }),
  start_date: z.string().max(40).optional().describe('First day (YYYY-MM-DD, UTC) or ISO 8601 date-time. Required.').meta({ example: '2026-11-01' }),
  end_date: z.string().max(40).optional().describe('Last day, included (YYYY-MM-DD, UTC) or ISO 8601 date-time. Required; at most 366 days after start_date.').meta({ example: '2026-11-30' }),
  include_details: z.boolean().optional().describe('Adds ip_address, user_agent, key_id and request_id columns.'),
  email_to: z.string().max(254).optional().describe('E-mailed a download link when the export completes.').meta({ example: 'finance@example.com' }),
});
const ExportParams = z.object({ export_id: z.string().min(1).max(100) });
const CreateResponse = z.object({
  success: z.literal(true),
  export_id: z.string().meta({ example: 'exp_0c5e3b9f2a7d41e8b6c9d0a1' }),
  status: z.literal('processing'),
  estimated_completion: z.string().describe('ISO 8601, from the rows in range at the measured export rate.'),
  download_url: z.null().describe('Null while processing; see GET /v1/usage/export/{export_id}.'),
});
const StatusResponse = z.object({
  success: z.literal(true),
  export_id: z.string(),
  status: z.enum(['processing', 'completed', 'failed', 'expired']),
  progress: z.number().describe('Percent, 0-100.'),
  format: z.enum(['csv', 'json']).describe('As requested: `csv`, or `json` (the file is JSON Lines, one object per row).'),
  start_date: z.string(),
  end_date: z.string(),
  include_details: z.boolean(),
  row_count: z.number().describe('Rows written so far (all of them once completed).'),
  size_bytes: z.number().nullable(),
  download_url: z.string().nullable().describe(`Signed link, valid ${DOWNLOAD_LINK_SECONDS / 60} minutes (ask again for a new one); null unless completed.`),
  download_expires_at: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  expires_at: z.string().nullable().describe("When the file is deleted (the plan's export history: 7, 30, 90 or 365 days)."),
  error: z.string().nullable().describe('Why it failed.'),
});

/** Base URL of links in answers: configured, never the request's Host (apps/api/public-origin.ts). */
export function baseUrl(platform: Platform, request: FastifyRequest): string {
  return linkOrigin(platform.config, request);
}

function statusBody(doc: ExportDoc, exportsUc: UsageExports, base: string, nowMs: number) {
  const linkExpiry = doc.status === 'completed' && doc.expires_at ? Math.min(nowMs + DOWNLOAD_LINK_SECONDS * 1000, Date.parse(doc.expires_at)) : null;
  return {
    success: true as const,
    export_id: doc.export_id,
    status: doc.status,
    progress: doc.progress,
    // The request's name for the format (`json`); the file itself is JSON Lines (`.jsonl`).
    format: doc.format === 'csv' ? ('csv' as const) : ('json' as const),
    start_date: doc.start,
    end_date: doc.end,
    include_details: doc.include_details,
    row_count: doc.rows,
    size_bytes: doc.bytes,
    download_url: linkExpiry === null ? null : `${base}/v1/usage/export/${doc.export_id}/download?${exportsUc.signLink(doc.export_id, linkExpiry)}`,
    download_expires_at: linkExpiry === null ? null : new Date(Math.floor(linkExpiry / 1000) * 1000).toISOString(),
    created_at: doc.requested_at,
    completed_at: doc.completed_at,
    expires_at: doc.expires_at,
    error: doc.error,
  };
}

/** `POST /v1/usage/export`, `GET /v1/usage/export/{export_id}` and the signed download. */
export function registerUsageExports(app: ApiApp, platform: Platform, exportsUc: UsageExports): void {
  app.route({
    method: 'POST',
    url: '/v1/usage/export',
    config: USAGE_WRITE_ROUTE_CONFIG,
    schema: {
      tags: ['usage'],
      summary: 'Start a usage export',
      description: `Runs as a durable workflow writing the file to the blob store. Quota per rolling 24 h: ${Object.entries(EXPORT_DAILY_QUOTA).map(([p, n]) => `${p} ${n}`).join(', ')} (429 \`export_quota_exceeded\`). Answers 202.`,
      body: ExportBody,
      response: { ...USAGE_ERROR_RESPONSES, 202: CreateResponse },
    },
    handler: async (request, reply) =>
      mapUsageErrors(async () => {
        const a = request.auth!;
        const doc = await exportsUc.request(a.tenantId, a.tenant.plan, request.body as ExportRequest);
        reply.code(202);
        return { success: true as const, export_id: doc.export_id, status: 'processing' as const, estimated_completion: estimatedCompletion(doc), download_url: null };
      }),
  });
  app.route({
    method: 'GET',
    url: '/v1/usage/export/:export_id',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags: ['usage'], summary: 'Export status, progress and download link', params: ExportParams, response: { ...USAGE_ERROR_RESPONSES, 200: StatusResponse } },
    handler: async (request) =>
      mapUsageErrors(async () => {
        const doc = await exportsUc.get(request.auth!.tenantId, (request.params as { export_id: string }).export_id);
        return statusBody(doc, exportsUc, baseUrl(platform, request), platform.clock.now());
      }),
  });
  app.route({
    method: 'GET',
    url: '/v1/usage/export/:export_id/download',
    config: { auth: false, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['usage'],
      summary: 'Download an export (signed link)',
      description: 'No Authorization header: the link itself is the credential (HMAC-SHA256 over the export id and expiry).',
      params: ExportParams,
      // Optional here: a link without (or with a mangled) expiry or signature is an invalid link, 403
      // `invalid_download_link` from the check below, not a schema error.
      querystring: z.object({
        expires: z.string().optional().describe('Unix time (s) the link expires; part of the signed link.'),
        signature: z.string().optional().describe('HMAC-SHA256 (hex) of the export id and expiry; part of the signed link.'),
      }),
    },
    handler: async (request, reply) =>
      mapUsageErrors(async () => {
        const q = request.query as { expires?: string; signature?: string };
        const { doc, stream, bytes } = await exportsUc.open((request.params as { export_id: string }).export_id, q.expires ?? '', (q.signature ?? '').slice(0, 256));
        const ext = doc.format === 'csv' ? 'csv' : 'jsonl';
        reply
          .header('content-type', doc.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-length', String(bytes))
          .header('content-disposition', `attachment; filename="sello-usage-${doc.start.slice(0, 10)}-${doc.end.slice(0, 10)}.${ext}"`)
          .header('cache-control', 'private, no-store');
        return reply.send(stream);
      }),
  });
}
