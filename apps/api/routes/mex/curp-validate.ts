import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { dayNumber, validateCurp } from '../../../../domain/curp/index.ts';
import { CurpValidateBody, CurpValidateResponse, RegistryError } from './schemas.ts';
import { registryError } from './runtime.ts';

/**
 * `POST /v1/mex/curp/validate` (beyond the spec): the CURP engine as an endpoint. Free of credits, no
 * provider call: structure, check digit, birth date (not in the future), state, sex, inconvenient words.
 * 400 MISSING_PARAMETER when `curp` is absent, INVALID_PARAMETER when it is not a string.
 */
export function registerCurpValidate(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/mex/curp/validate',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'registry' },
    schema: {
      tags: ['mex'],
      summary: 'Validate a CURP offline (free)',
      description:
        'Checks a CURP with the CURP engine, without calling RENAPO: 18 characters, name letters, birth date (a real date, century ' +
        'from the homonym character, not in the future), sex H/M, state code (or NE for births abroad), internal consonants, ' +
        "RENAPO's inconvenient-word rule and the check digit. Free of credits. A well-formed CURP is not proof that RENAPO issued it: " +
        'use get-curp for that.',
      body: CurpValidateBody,
      response: { 200: CurpValidateResponse, 400: RegistryError },
    },
    validatorCompiler: () => (data) => ({ value: data }),
    handler: async (request) => {
      const body = request.body as unknown;
      const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
      if (!isObject && body !== undefined && body !== null && body !== '') {
        throw registryError('INVALID_PARAMETER', 'Invalid parameter body: the request body must be a JSON object');
      }
      const curp = isObject ? (body as Record<string, unknown>).curp : undefined;
      if (curp === undefined || curp === null || (typeof curp === 'string' && curp.trim() === '')) {
        throw registryError('MISSING_PARAMETER', 'Missing required parameter: curp');
      }
      if (typeof curp !== 'string') throw registryError('INVALID_PARAMETER', 'Invalid parameter curp: must be a string');
      const result = validateCurp(curp, { today: dayNumber(new Date(ctx.clock.now())) });
      return { success: true as const, data: result };
    },
  });
}
