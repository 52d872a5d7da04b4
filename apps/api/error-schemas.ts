/**
 * zod schemas of the structured error body of the spec (Errors): `{success: false, error: {code,
 * message, details}}`, for the OpenAPI document. One definition for every route that answers in the
 * structured shape (signing, face, face and fingerprint matching, deployments); the body itself is
 * written by the error handler (`errors.ts`).
 */
import { z } from 'zod';

const codeList = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');

/** The structured error body, any code (routes describe their codes per status with `.describe`). */
export const ErrorBody = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().describe('Machine-readable code, lower_snake_case').meta({ example: 'validation_error' }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).describe('Context of the error, e.g. `field` names the offending field; `issues` lists schema failures.'),
  }),
});

/** The structured error body documented with the codes a route can answer at one status. */
export function errorSchema(codes: readonly string[]) {
  return z
    .object({
      success: z.literal(false),
      error: z.object({
        code: z.string().describe(`One of: ${codeList(codes)}`),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).describe('Context of the error, e.g. `field` for invalid input.'),
      }),
    })
    .describe(`Structured error. Codes: ${codeList(codes)}.`);
}
