import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { DeploymentsRuntime } from '../../../../workflows/deployments/runtime.ts';
import type { DeploymentStatus } from '../../../../domain/deployments/deployment.ts';
import {
  ADMIN_ROUTE,
  CreateDeploymentBody,
  DeploymentIdParams,
  DeploymentRecordSchema,
  MAX_PER_PAGE,
  RecordResponse,
  UpdateDeploymentBody,
  mapErrors,
  BAD_FIELDS,
  COMMON_ERRORS,
  ErrorBody,
  NOT_FOUND,
} from './schemas.ts';

const TAG = ['deployments'];

export const ListQuery = z.object({
  status: z.enum(['pending', 'provisioning', 'active', 'failed', 'deactivated']).optional().describe('Only deployments in this status.'),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).describe('1-based page number.'),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(25).describe(`Items per page (default 25, max ${MAX_PER_PAGE}).`),
});
export const ListResponse = z.object({
  success: z.literal(true),
  data: z.array(DeploymentRecordSchema),
  pagination: z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int(), total_pages: z.number().int() }),
});

/**
 * `/api/deployments/*` (unversioned, spec "Deployments"): list, create, status (spec), update, retry and
 * deactivate (designed here, docs/deployments.md), and the public logo. Management needs `admin`; a
 * deployment is visible only to the tenant that created it (others get 404 `deployment_not_found`).
 */
export function registerDeploymentRoutes(app: ApiApp, _platform: Platform, runtime: DeploymentsRuntime): void {
  const service = runtime.service;
  const owner = (r: { auth?: { tenantId: string } }) => r.auth!.tenantId;

  app.route({
    method: 'GET',
    url: '/api/deployments',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'List deployments',
      description: 'Your tenant\'s deployments, newest first, paginated. Secrets are never listed.',
      querystring: ListQuery,
      response: { 200: ListResponse, 400: ErrorBody.describe('`validation_error` (bad `page`, `per_page` > 100, unknown `status`).'), ...COMMON_ERRORS },
    },
    handler: async (request) => {
      const q = request.query as z.infer<typeof ListQuery>;
      const page = await mapErrors(() => service.list(owner(request), { page: q.page, per_page: q.per_page, status: q.status as DeploymentStatus | undefined }));
      return { success: true as const, ...page };
    },
  });

  app.route({
    method: 'POST',
    url: '/api/deployments/create',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'Create a deployment',
      description:
        'Validates the fields, reserves `clientId` (per tenant) and `domain` (overall), records the deployment as `pending` and answers 201 at once; ' +
        'provisioning (client tenant and plan, first API keys, branding) runs as a durable workflow. Poll the status endpoint: its first answer after ' +
        'the keys are issued carries the secrets, once. The client\'s calls spend your credits (within `monthlyCreditCap` when set); the number of live ' +
        'deployments is capped per plan. The keys are issued last: a provisioning that fails leaves no key.',
      body: CreateDeploymentBody,
      response: {
        201: RecordResponse,
        ...BAD_FIELDS,
        ...COMMON_ERRORS,
        403: ErrorBody.describe(
          '`insufficient_permissions`: the key lacks `admin`; `plan_not_allowed`: `plan` is above your own plan; `deployment_limit_reached`: you already have ' +
            'as many live deployments as your plan allows (Free 1, Basic 5, Pro 25, Enterprise unlimited; `details.limit`, `details.live`, `details.plan`), or your tenant is itself a white-label client.',
        ),
        409: ErrorBody.describe('`client_id_taken`, `domain_taken`.'),
      },
    },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateDeploymentBody>;
      const record = await mapErrors(() => service.create(owner(request), body, request.auth!.tenant.plan));
      reply.status(201);
      return { success: true as const, data: record };
    },
  });

  app.route({
    method: 'GET',
    url: '/api/deployments/:deployment_id/status',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'Deployment status',
      description: 'The record with the provisioning history. The first read after the `api_keys` step completed includes each key\'s secret (`api_keys[].key`); later reads never do.',
      params: DeploymentIdParams,
      response: { 200: RecordResponse, ...COMMON_ERRORS, ...NOT_FOUND },
    },
    handler: async (request, reply) => {
      const { deployment_id } = request.params as z.infer<typeof DeploymentIdParams>;
      const record = await mapErrors(() => service.status(owner(request), deployment_id));
      if (record.api_keys.some((k) => k.key)) reply.header('Cache-Control', 'no-store');
      return { success: true as const, data: record };
    },
  });

  app.route({
    method: 'PUT',
    url: '/api/deployments/:deployment_id',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'Update a deployment',
      description:
        'Changes `clientName`, `domain`, `platform`, `environment`, `monthlyCreditCap` or `config`; any other field (`clientId`, `plan`, `status`, unknown ones) ' +
        'is refused with 400 `validation_error` naming it. A branding change (colour, logo, company name) starts a new run of the ' +
        '`branding` step; it is refused (409 `invalid_state`) while provisioning runs. Deactivated deployments cannot change.',
      params: DeploymentIdParams,
      body: UpdateDeploymentBody,
      response: { 200: RecordResponse, ...BAD_FIELDS, ...COMMON_ERRORS, ...NOT_FOUND, 409: ErrorBody.describe('`domain_taken`, `invalid_state` (deactivated, or a branding change while provisioning runs).') },
    },
    handler: async (request) => {
      const { deployment_id } = request.params as z.infer<typeof DeploymentIdParams>;
      const body = request.body as z.infer<typeof UpdateDeploymentBody>;
      const record = await mapErrors(() => service.update(owner(request), deployment_id, body));
      return { success: true as const, data: record };
    },
  });

  app.route({
    method: 'POST',
    url: '/api/deployments/:deployment_id/retry',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'Retry a failed provisioning',
      description: 'Starts a new run at the failed step (earlier steps are not repeated; nothing is created twice). 409 `invalid_state` when nothing failed.',
      params: DeploymentIdParams,
      response: { 202: RecordResponse, ...COMMON_ERRORS, ...NOT_FOUND, 409: ErrorBody.describe('`invalid_state`: nothing failed, or deactivated.') },
    },
    handler: async (request, reply) => {
      const { deployment_id } = request.params as z.infer<typeof DeploymentIdParams>;
      const record = await mapErrors(() => service.retry(owner(request), deployment_id));
      reply.status(202);
      return { success: true as const, data: record };
    },
  });

  app.route({
    method: 'POST',
    url: '/api/deployments/:deployment_id/deactivate',
    config: ADMIN_ROUTE,
    schema: {
      tags: TAG,
      summary: 'Deactivate a deployment',
      description:
        'Final: the branding is no longer served, `clientId` and `domain` are released, and the API keys the deployment issued are revoked ' +
        '(by a workflow, within seconds). The client\'s tenant and its data stay. Deactivating again answers the record unchanged.',
      params: DeploymentIdParams,
      response: { 200: RecordResponse, ...COMMON_ERRORS, ...NOT_FOUND },
    },
    handler: async (request) => {
      const { deployment_id } = request.params as z.infer<typeof DeploymentIdParams>;
      const record = await mapErrors(() => service.deactivate(owner(request), deployment_id));
      return { success: true as const, data: record };
    },
  });

  app.route({
    method: 'GET',
    url: '/api/deployments/:deployment_id/logo',
    config: { auth: false, errorShape: 'structured' },
    schema: {
      tags: TAG,
      summary: 'A deployment\'s logo (public)',
      description: 'The stored logo, re-encoded as PNG, for signing pages and e-mails. No credentials needed; 404 once the deployment is deactivated.',
      params: DeploymentIdParams,
      security: [],
    },
    handler: async (request, reply) => {
      const { deployment_id } = request.params as z.infer<typeof DeploymentIdParams>;
      const png = await runtime.service.logo(deployment_id);
      if (!png) {
        reply.status(404);
        return { success: false, error: { code: 'deployment_not_found', message: `no logo for deployment ${deployment_id}`, details: {} } };
      }
      reply.header('Content-Type', 'image/png');
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Cache-Control', 'public, max-age=300');
      return reply.send(png);
    },
  });
}
