import { z } from 'zod';
import { EmailErrorCodes, MAX_BATCH_EMAILS } from '../../../../domain/email/errors.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { EmailErrorSchema, EmailResultSchema, EmailStatisticsSchema } from './schemas.ts';

import { parseReachable, verifierFailure } from './verify.ts';

export const EmailBatchBody = z
  .object({
    emails: z.array(z.string()).min(1).max(MAX_BATCH_EMAILS).describe('1-100 addresses; repeated ones are verified once; results keep this order.').meta({ example: ['juan@gmail.com', 'ventas@empresa.com.mx'] }),
    reachable: z.boolean().optional().describe('Run the live SMTP probe for every address (default false).'),
  })
  .describe('Batch of addresses.');

export const EmailBatchResponse = z.object({
  success: z.literal(true),
  data: z.object({
    results: z.array(EmailResultSchema),
    statistics: EmailStatisticsSchema.describe('Counts over the results (one per input address).'),
  }),
  processing_time: z.number().describe('Seconds spent on the request.'),
});
export type EmailBatchResponse = z.infer<typeof EmailBatchResponse>;

/** `POST /v1/email/verify/batch` (spec, Email verification). 1 credit per request. */
export function registerEmailVerifyBatch(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/email/verify/batch',
    config: { auth: { permission: 'read', jwt: true }, errorShape: 'flat' },
    attachValidation: true,
    schema: {
      tags: ['email'],
      summary: 'Verify up to 100 e-mail addresses',
      description:
        'The single verification for each address, run concurrently with a bounded pool; look-ups of one domain are shared and repeated ' +
        'addresses verified once; results keep the input order. Costs 1 credit per request. Errors use the flat shape.',
      body: EmailBatchBody,
      response: { 200: EmailBatchResponse, 400: EmailErrorSchema, 500: EmailErrorSchema },
    },
    handler: async (request) => {
      const started = performance.now();
      const body = request.body as unknown;
      const emails = body && typeof body === 'object' ? (body as Record<string, unknown>).emails : undefined;
      if (!Array.isArray(emails)) throw new ApiError(400, EmailErrorCodes.invalidEmails, '`emails` is required and must be an array of strings');
      if (emails.length > MAX_BATCH_EMAILS) {
        throw new ApiError(400, EmailErrorCodes.tooManyEmails, `At most ${MAX_BATCH_EMAILS} emails per batch (got ${emails.length})`);
      }
      if (emails.length === 0) throw new ApiError(400, EmailErrorCodes.invalidEmails, '`emails` must hold 1 to 100 addresses');
      const bad = emails.findIndex((e) => typeof e !== 'string');
      if (bad >= 0) throw new ApiError(400, EmailErrorCodes.invalidEmails, `emails[${bad}] is not a string`);
      const reachable = parseReachable((body as Record<string, unknown>).reachable);
      let data;
      try {
        data = await ctx.emailVerifier.verifyBatch(emails as string[], { reachable });
      } catch (error) {
        throw verifierFailure(error, request.log);
      }
      return { success: true as const, data, processing_time: Math.round((performance.now() - started) * 10) / 10_000 };
    },
  });
}
