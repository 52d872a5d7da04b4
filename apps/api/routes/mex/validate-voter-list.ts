import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { lookupFingerprint, validateVoterListRequest } from '../../../../domain/registry/index.ts';
import { type VoterLookupRequest } from '../../../../infra/ports/registry-provider.ts';
import { VoterListBody, VoterListResponse, lookupErrorResponses } from './schemas.ts';
import { callProvider, recordLookup, rejectedLookup, secondsSince } from './runtime.ts';
import type { RegistryDeps } from './index.ts';

const OPERATION = 'ine.validate-voter-list' as const;

/**
 * `POST /v1/mex/ine/validate-voter-list` (spec: Government registry lookups): whether a voter credential
 * is in INE's voter list and current. 15 credits on 2xx. A credential not found or invalidated is an
 * HTTP 200 with `data` = `{valid:false, cic, message}`. 400 MISSING_PARAMETER / INVALID_PARAMETER,
 * 402 insufficient credits, 503 SERVICE_UNAVAILABLE.
 */
export function registerValidateVoterList(app: ApiApp, ctx: Platform, deps: RegistryDeps): void {
  const inputs = new WeakMap<FastifyRequest, VoterLookupRequest>();
  app.route({
    method: 'POST',
    url: '/v1/mex/ine/validate-voter-list',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'registry' },
    schema: {
      tags: ['mex'],
      summary: "Validate a voter credential against INE's voter list",
      description:
        'Checks the credential in the voter list through a certified provider. Costs 15 credits (2xx only, including the 200 ' +
        '`valid:false` answer). Errors use the registry shape: 400 `MISSING_PARAMETER` / `INVALID_PARAMETER` (`cic` and ' +
        '`identificadorCiudadano` 9 digits, `ocr` 13 digits), 402 insufficient credits, 503 `SERVICE_UNAVAILABLE`.',
      body: VoterListBody,
      response: { 200: VoterListResponse, ...lookupErrorResponses },
    },
    validatorCompiler: () => (data) => ({ value: data }),
    preValidation: async (request) => {
      const v = validateVoterListRequest(request.body);
      if (!v.ok) throw await rejectedLookup(ctx, request, { operation: OPERATION, provider: deps.provider.name, sandbox: deps.provider.sandbox }, v.error);
      inputs.set(request, v.value);
    },
    handler: async (request) => {
      const input = inputs.get(request)!;
      const fingerprint = lookupFingerprint(deps.fingerprintKey, OPERATION, input);
      const base = { operation: OPERATION, fingerprint, provider: deps.provider.name, sandbox: deps.provider.sandbox };
      const { result, latencyMs: latency } = await callProvider(ctx, request, base, 'ine', () => deps.provider.validateVoter(input, { requestId: request.id }));
      await recordLookup(ctx, request, {
        ...base,
        outcome: result.valid ? 'valid' : 'not_valid',
        provider_latency_ms: latency,
        http_status: 200,
        ...(result.valid ? { registry_status: result.estatus } : {}),
      });
      return {
        success: true as const,
        status: 'OK' as const,
        data: result,
        processing_time: secondsSince(request.edge.startedAt),
        ...(deps.provider.sandbox ? { sandbox: true as const } : {}),
      };
    },
  });
}
