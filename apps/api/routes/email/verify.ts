import { z } from 'zod';
import { EmailErrorCodes } from '../../../../domain/email/errors.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { BooleanQuery, EmailErrorSchema, EmailResultSchema } from './schemas.ts';


export const EmailVerifyQuery = z.object({
  email: z.unknown().optional().describe('Address to verify (URL-encoded). Required.').meta({ example: 'juan.perez+banco@gmail.com' }),
  reachable: BooleanQuery,
});

export const EmailVerifyResponse = z.object({
  success: z.literal(true),
  data: EmailResultSchema,
  processing_time: z.number().describe('Seconds spent on the request.'),
});
export type EmailVerifyResponse = z.infer<typeof EmailVerifyResponse>;

/** Reads `reachable` from a query/body value: booleans, `true`/`false`/`1`/`0`; undefined is false. */
export function parseReachable(value: unknown): boolean {
  if (value === undefined) return false;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new ApiError(400, EmailErrorCodes.invalidReachable, '`reachable` must be true or false');
}

/** Maps an unexpected verifier failure to the spec's 500 (flat shape, with `message`); logs without the address. */
export function verifierFailure(error: unknown, log: { error: (o: object, m: string) => void }): ApiError {
  // Personal data stays out of the log: anything address-like in the message is masked.
  const mask = (text: string): string => text.replace(/[^\s@"'<>]+@[^\s@"'<>]+/g, '[email]');
  log.error({ err: error instanceof Error ? { name: error.name, message: mask(error.message) } : mask(String(error)) }, 'email verifier failed');
  return new ApiError(500, EmailErrorCodes.verificationFailed, 'The e-mail verifier could not complete the request; please retry');
}

/** `GET /v1/email/verify` (spec, Email verification). 1 credit. */
export function registerEmailVerify(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/email/verify',
    config: { auth: { permission: 'read', jwt: true }, errorShape: 'flat' },
    attachValidation: true,
    schema: {
      tags: ['email'],
      summary: 'Verify one e-mail address',
      description:
        'Syntax (RFC 5321/5322, RFC 6531, IDNA 2008), DNS (MX with the RFC 5321 implicit-MX fallback, null MX), disposable, role-based and ' +
        'free-provider lists, typo suggestion, alias normalisation and, with reachable=true, a live SMTP recipient probe that never sends a ' +
        'message. Costs 1 credit. Accepts an API key with read permission or a dashboard session JWT. Errors use the flat shape.',
      querystring: EmailVerifyQuery,
      response: { 200: EmailVerifyResponse, 400: EmailErrorSchema, 500: EmailErrorSchema },
    },
    handler: async (request) => {
      const started = performance.now();
      const query = (request.query ?? {}) as Record<string, unknown>;
      const email = query.email;
      if (typeof email !== 'string' || email === '') {
        throw new ApiError(400, EmailErrorCodes.missingEmail, Array.isArray(email) ? 'Send one `email` query parameter' : 'The `email` query parameter is required');
      }
      const reachable = parseReachable(query.reachable);
      let data;
      try {
        data = await ctx.emailVerifier.verify(email, { reachable });
      } catch (error) {
        throw verifierFailure(error, request.log);
      }
      return { success: true as const, data, processing_time: Math.round((performance.now() - started) * 10) / 10_000 };
    },
  });
}
