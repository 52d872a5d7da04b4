import { z } from 'zod';
import { RETENTION_FIELDS, RetentionError, getRetention, setRetention, validateRetentionChange, MAX_RETENTION_DAYS } from '../../../../domain/privacy/retention.ts';
import { offboardTenant } from '../../../../domain/privacy/offboarding.ts';
import { PLAN_RETENTION } from '../../../../domain/plans/plans.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { PrivacyRetention } from '../../../../workflows/privacy-retention/service.ts';
import { ApiError } from '../../errors.ts';
import { errorSchema } from '../../error-schemas.ts';

const days = z.number().int().nullable();
const defaultsText = (Object.entries(PLAN_RETENTION) as Array<[string, (typeof PLAN_RETENTION)['free']]>)
  .map(([plan, r]) => `${plan}: biometric ${r.biometricTemplatesDays ?? 'until deleted'}, documents ${r.documentsDays ?? 'until deleted'}, signed ${r.signedDocumentsDays ?? 'until deleted'}, usage IPs ${r.usageIpDays ?? 'kept'}`)
  .join('; ');
const Settings = z.object({
  biometric_templates_days: days.describe("Face and fingerprint templates: a subject is erased (as by `POST /v1/privacy/erasures`) this many days after its latest enrolment; null = until deleted."),
  documents_days: days.describe('Signing uploads, page images and drawn signature images: deleted this many days after the document ended (finalized, expired or cancelled); the sealed final PDF stays. null = until the document is deleted.'),
  signed_documents_days: days.describe('Finalized signing documents: deleted with all their files this many days after finalization; null = until deleted.'),
  usage_ip_days: days.describe('Client IP addresses of usage rows: truncated to their /24 (IPv4) or /48 (IPv6) network, as `203.0.113.0/24`, after this many days; null = kept.'),
});
const RetentionSchema = z.object({
  plan: z.string(),
  settings: Settings.describe('The periods in force (days).'),
  defaults: Settings.describe(`The plan's defaults (${defaultsText}).`),
  overridden: z.array(z.enum(RETENTION_FIELDS as [string, ...string[]])).describe('The periods set by the tenant (the others follow the plan).'),
  last_sweep: z.object({ swept_at: z.string(), items: z.array(z.object({ kind: z.string(), count: z.number().int() })) }).nullable().describe('The latest daily sweep that erased something: what kind and how many (no personal data).'),
  usage_ips_truncated_before: z.string().nullable().describe('Usage rows created before this instant show truncated IP addresses.'),
});
const value = z.union([z.number(), z.null(), z.literal('plan')]);
const PutBody = z
  .object({
    biometric_templates_days: value.optional(),
    documents_days: value.optional(),
    signed_documents_days: value.optional(),
    usage_ip_days: value.optional(),
  })
  .strict()
  .describe(`Periods to change, each an integer of days (1-${MAX_RETENTION_DAYS}), null (kept until deleted) or "plan" (back to the plan's default); a period not named keeps its value.`);
const OffboardBody = z.object({ confirm_tenant_id: z.string().min(1).max(128).describe("Your own tenant id, as a confirmation: off-boarding cannot be undone.") }).strict();
const OffboardingSchema = z.object({
  offboarding_id: z.string().meta({ example: 'off_3f9c1d2e4b5a69788a9b0c1d2e3f4a5b' }),
  tenant_id: z.string(),
  status: z.enum(['processing', 'completed']),
  requested_at: z.string(),
  completed_at: z.string().nullable(),
  erased: z
    .array(z.object({ kind: z.enum(['biometric_subjects', 'signing_documents', 'blobs', 'usage_ip_rows', 'api_keys', 'tenant_profile', 'idempotency_answers']), stores: z.array(z.string()), count: z.number().int() }))
    .describe('The receipt: what was erased or revoked, where and how many. Holds no personal data.'),
});

/**
 * `GET /v1/privacy/retention` (read), `PUT /v1/privacy/retention` (admin) and `POST /v1/privacy/offboarding`
 * (admin): the tenant's retention periods (docs/privacy.md, "Retention") and its own off-boarding.
 */
export function registerRetentionRoutes(app: ApiApp, ctx: Platform, runtime: PrivacyRetention): void {
  app.route({
    method: 'GET',
    url: '/v1/privacy/retention',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['privacy'],
      summary: 'Retention periods of personal data',
      description: `The periods in force, the plan's defaults and the latest sweep. A daily sweep erases what outlived its period. Defaults per plan: ${defaultsText}.`,
      response: { 200: z.object({ success: z.literal(true), data: RetentionSchema }) },
    },
    handler: async (request) => ({ success: true as const, data: await getRetention(ctx.events, request.auth!.tenantId, request.auth!.tenant.plan) }),
  });

  app.route({
    method: 'PUT',
    url: '/v1/privacy/retention',
    config: { auth: { permission: 'admin' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['privacy'],
      summary: 'Set retention periods (admin)',
      description: 'Changes some periods; the next daily sweep applies them (a shorter period erases what is already past it).',
      body: PutBody,
      response: { 200: z.object({ success: z.literal(true), data: RetentionSchema }), 400: errorSchema(['validation_error', 'invalid_request']).describe('A period that is not an integer from 1 to 36500, null or "plan"; an unknown field; nothing to change.') },
    },
    handler: async (request) => {
      let change;
      try {
        change = validateRetentionChange(request.body as Record<string, unknown>);
      } catch (error) {
        if (error instanceof RetentionError) throw new ApiError(400, 'invalid_request', error.message, error.field ? { field: error.field } : undefined);
        throw error;
      }
      const auth = request.auth!;
      return { success: true as const, data: await setRetention(ctx.events, { tenantId: auth.tenantId, plan: auth.tenant.plan, change, now: ctx.clock.now(), requestId: request.id }) };
    },
  });

  app.route({
    method: 'POST',
    url: '/v1/privacy/offboarding',
    config: { auth: { permission: 'admin' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['privacy'],
      summary: "Off-board your tenant: erase all of its personal data (admin)",
      description:
        'Erases every face and fingerprint subject (crypto-shredded as by `POST /v1/privacy/erasures`), deletes every signing document and every file of the tenant, ' +
        'truncates the IP addresses of its usage rows, and revokes every API key, this one included: later calls answer 401. Credits, usage counts and the event log\'s ' +
        'non-personal records stay (billing and audit). Answers the receipt; repeating a request that failed mid-way resumes it. Cannot be undone.',
      body: OffboardBody,
      response: {
        202: z.object({ success: z.literal(true), offboarding_id: z.string(), status: z.enum(['processing', 'completed']), data: OffboardingSchema }),
        400: errorSchema(['validation_error', 'invalid_request']).describe('`confirm_tenant_id` missing or not your tenant id.'),
      },
    },
    handler: async (request, reply) => {
      const auth = request.auth!;
      const { confirm_tenant_id } = request.body as z.infer<typeof OffboardBody>;
      if (confirm_tenant_id !== auth.tenantId) throw new ApiError(400, 'invalid_request', 'confirm_tenant_id must be your tenant id', { field: 'confirm_tenant_id' });
      const o = await offboardTenant(runtime.offboarding, { tenantId: auth.tenantId, plan: auth.tenant.plan, requestId: request.id });
      reply.status(202);
      return { success: true as const, offboarding_id: o.offboarding_id, status: o.status, data: o };
    },
  });
}
