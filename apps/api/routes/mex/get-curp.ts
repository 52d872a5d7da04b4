import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { dayNumber } from '../../../../domain/curp/index.ts';
import { lookupFingerprint, validateGetCurpRequest } from '../../../../domain/registry/index.ts';
import { type CurpLookupRequest } from '../../../../infra/ports/registry-provider.ts';
import { GetCurpBody, GetCurpResponse, RegistryError, lookupErrorResponses } from './schemas.ts';
import { callProvider, recordLookup, registryError, rejectedLookup, secondsSince } from './runtime.ts';
import type { RegistryDeps } from './index.ts';

const OPERATION = 'renapo.get-curp' as const;

/**
 * `POST /v1/mex/renapo/get-curp` (spec: Government registry lookups): the CURP of a person from RENAPO,
 * through the configured provider. 5 credits on 2xx. 400 MISSING_PARAMETER / INVALID_PARAMETER,
 * 404 NOT_FOUND (nobody with these data; not charged), 402 insufficient credits, 503 SERVICE_UNAVAILABLE.
 */
export function registerGetCurp(app: ApiApp, ctx: Platform, deps: RegistryDeps): void {
  const inputs = new WeakMap<FastifyRequest, CurpLookupRequest>();
  app.route({
    method: 'POST',
    url: '/v1/mex/renapo/get-curp',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'registry' },
    schema: {
      tags: ['mex'],
      summary: 'Get the CURP of a person from RENAPO',
      description:
        'Looks the person up in RENAPO through a certified provider. Costs 5 credits (2xx only). Errors use the registry shape ' +
        '`{success:false, status:"ERROR", type, message}`: 400 `MISSING_PARAMETER` (message names it) or `INVALID_PARAMETER`; ' +
        '404 `NOT_FOUND`; 402 `{success:false, error:"Insufficient credits", credits_required, credits_available}`; ' +
        '503 `SERVICE_UNAVAILABLE` with `error_code` and `details.service`/`details.error_message`.',
      body: GetCurpBody,
      response: { 200: GetCurpResponse, ...lookupErrorResponses, 404: RegistryError },
    },
    // The spec's own validation (MISSING_PARAMETER/INVALID_PARAMETER) runs in preValidation, before credits are reserved.
    validatorCompiler: () => (data) => ({ value: data }),
    preValidation: async (request) => {
      const v = validateGetCurpRequest(request.body, dayNumber(new Date(ctx.clock.now())));
      if (!v.ok) throw await rejectedLookup(ctx, request, { operation: OPERATION, provider: deps.provider.name, sandbox: deps.provider.sandbox }, v.error);
      inputs.set(request, v.value);
    },
    handler: async (request) => {
      const input = inputs.get(request)!;
      const fingerprint = lookupFingerprint(deps.fingerprintKey, OPERATION, input);
      const base = { operation: OPERATION, fingerprint, provider: deps.provider.name, sandbox: deps.provider.sandbox };
      const { result, latencyMs: latency } = await callProvider(ctx, request, base, 'renapo', () => deps.provider.getCurp(input, { requestId: request.id }));
      if (!result.found) {
        await recordLookup(ctx, request, { ...base, outcome: 'not_found', provider_latency_ms: latency, http_status: 404 });
        throw registryError('NOT_FOUND', result.message || 'No record found in RENAPO for these data.');
      }
      await recordLookup(ctx, request, { ...base, outcome: 'found', provider_latency_ms: latency, http_status: 200, registry_status: result.record.estatus });
      return {
        success: true as const,
        status: 'OK' as const,
        data: result.record,
        processing_time: secondsSince(request.edge.startedAt),
        ...(deps.provider.sandbox ? { sandbox: true as const } : {}),
      };
    },
  });
}
