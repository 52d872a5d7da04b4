import { z } from 'zod';

/** `meta.smtp` (spec, Email verification result). */
export const SmtpFlagsSchema = z
  .object({
    host_exists: z.boolean().describe('An SMTP server of the domain answered with a 220 greeting.'),
    full_inbox: z.boolean().describe('The mailbox was refused as full (452/552, enhanced x.2.2).'),
    catch_all: z.boolean().describe('The server also accepted a random recipient at the same domain.'),
    deliverable: z.boolean().describe('RCPT TO for the address was accepted (250/251).'),
    disabled: z.boolean().describe('The mailbox is disabled (enhanced 5.2.1).'),
  })
  .describe('SMTP probe flags; null unless reachable=true.');

/** The spec's e-mail verification result (`data`, and each item of the batch's `results`). */
export const EmailResultSchema = z.object({
  email: z.string().describe('Input address, exactly as sent.').meta({ example: 'juan.perez+banco@gmail.com' }),
  status: z
    .enum(['VALID', 'INVALID_FORMAT', 'INVALID_DOMAIN', 'DISPOSABLE', 'ERROR'])
    .describe(
      'VALID: syntax ok, mail exchangers (MX, or A/AAAA per RFC 5321 §5.1), not disposable. INVALID_FORMAT: syntax invalid. ' +
        'INVALID_DOMAIN: NXDOMAIN, null MX (RFC 7505), no mail host, or an address literal. DISPOSABLE: disposable domain. ' +
        'ERROR: the DNS upstream could not complete (SERVFAIL, timeout).',
    )
    .meta({ example: 'VALID' }),
  score: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe('+20 valid syntax, +20 domain exists, +25 MX records, +25 not disposable, +10 not role-based, -5 alias. 90-100 excellent, 80-89 good, 60-79 fair, 40-59 poor, 0-39 very poor.')
    .meta({ example: 95 }),
  validations: z.object({
    syntax: z.boolean().describe('RFC 5321/5322 addr-spec (RFC 6531 UTF-8, IDNA 2008 domains).'),
    domain_exists: z.boolean().describe('The domain name exists in DNS.'),
    mx_records: z.boolean().describe('The domain has mail exchangers (MX records, or the RFC 5321 implicit MX).'),
    is_disposable: z.boolean().describe('Domain on the disposable-address list.'),
    is_role_based: z.boolean().describe('Local part names a role (info, ventas, soporte...) rather than a person.'),
  }),
  aliasOf: z.string().nullable().describe('Canonical address when the input is a provider alias (Gmail +tag and dots, Yahoo -tag, Outlook +tag); else null.').meta({ example: 'juanperez@gmail.com' }),
  meta: z.object({
    suggestion: z.string().nullable().describe('Typo correction of the domain, or null.').meta({ example: null }),
    free: z.boolean().describe('Free consumer mailbox provider.'),
    gravatar: z.boolean().describe('A Gravatar exists for the address (false when the check is disabled).'),
    reachability: z.enum(['yes', 'no', 'unknown']).describe('SMTP reachability; meaningful only with reachable=true.'),
    smtp: SmtpFlagsSchema.nullable(),
  }),
  processing_time: z.number().describe('Seconds spent on this address.').meta({ example: 0.012 }),
});

export const EmailStatisticsSchema = z.object({
  total: z.number().int(),
  valid: z.number().int(),
  invalid_format: z.number().int(),
  invalid_domain: z.number().int(),
  disposable: z.number().int(),
  role_based: z.number().int(),
  has_alias: z.number().int(),
});

/** Flat error body (spec, Errors). */
export const EmailErrorSchema = z.object({
  success: z.literal(false),
  error: z.string().describe('Error code.').meta({ example: 'missing_email' }),
  message: z.string().optional(),
});

export const BooleanQuery = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .optional()
  .describe('Run the live SMTP recipient probe (adds 1-5 s; often `unknown` for major providers). Default false.');
