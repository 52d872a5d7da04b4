import { z } from 'zod';
import { ErrorBody } from '../../error-schemas.ts';
import { DEPLOYMENT_ERRORS, DeploymentError } from '../../../../domain/deployments/errors.ts';
import { ENVIRONMENTS, PLATFORMS } from '../../../../domain/deployments/validate.ts';
import { PLAN_NAMES } from '../../../../domain/plans/plans.ts';
import { STEPS } from '../../../../domain/deployments/deployment.ts';
import { ApiError } from '../../errors.ts';

/** Largest `per_page` of the deployment list (same as the signing list's maximum). */
export const MAX_PER_PAGE = 100;

const iso = (d: string) => z.string().describe(d).meta({ example: '2026-06-01T12:00:00.000Z' });

export const DeploymentIdParams = z.object({
  deployment_id: z.string().min(1).max(100).describe('Deployment id (`dep_` + 32 hex).').meta({ example: 'dep_5b0c7e9a3f2d4c1e8a6b9d0f1e2c3a4b' }),
});

export const ConfigBody = z.object({
  primaryColor: z.string().max(20).describe('Brand colour, hex `#RGB` or `#RRGGBB` (400 `invalid_color`). Checked for WCAG AA contrast against white text; darkened when it fails (see `branding.contrast`).').meta({ example: '#0A7C66' }),
  logo: z.string().max(4096).describe('`https` URL of the logo (400 `invalid_logo_url`). Fetched once while provisioning: PNG, JPEG, WebP or GIF by content, at most 1 MB and 1024 px per side; SVG is refused.').meta({ example: 'https://cdn.example.mx/logo.png' }),
  companyName: z.string().max(400).describe('Name shown on signing pages, e-mails and the usage page (1-100 characters).').meta({ example: 'Financiera Ejemplo' }),
});

export const PlatformField = z.enum(PLATFORMS).describe('Where the client runs the white-label product: `web`, `ios`, `android` or `api`.').meta({ example: 'web' });
export const EnvironmentField = z.enum(ENVIRONMENTS).describe('`production`, `staging` or `development`.').meta({ example: 'production' });

export const CreateDeploymentBody = z.object({
  clientId: z.string().max(200).describe('Your identifier of the client: 1-64 of letters, digits, `.`, `_`, `-`; unique among your live deployments (409 `client_id_taken`).').meta({ example: 'financiera-ejemplo' }),
  clientName: z.string().max(800).describe('Client name (1-200 characters); also the name of the client\'s tenant.').meta({ example: 'Financiera Ejemplo S.A. de C.V.' }),
  domain: z.string().max(1100).describe('Domain the client serves its pages on; IDNA names accepted (stored in ASCII/Punycode). Unique across live deployments (409 `domain_taken`). Requests whose `Host` is this domain get the branding on public pages.').meta({ example: 'kyc.financiera-ejemplo.mx' }),
  platform: PlatformField,
  environment: EnvironmentField,
  plan: z.enum(PLAN_NAMES).optional().describe('Plan of the client\'s tenant (extension; default `basic`, or your own plan when that is lower). Never above your own plan (403 `plan_not_allowed`).').meta({ example: 'pro' }),
  monthlyCreditCap: z
    .number()
    .int()
    .min(0)
    .max(1_000_000_000)
    .nullable()
    .optional()
    .describe(
      'Extension: credits per UTC month this client may spend. A client\'s calls are charged to YOUR credits (it has no allowance of its own); ' +
        'past the cap its priced calls answer 429 `insufficient_credits` until the 1st. Null or absent: no cap (your balance is the limit). Change it with PUT.',
    )
    .meta({ example: 500 }),
  config: ConfigBody,
});

/**
 * Fields of the record that an update cannot change (issue 31: `PUT` answered 200 to them and ignored them).
 * They, and any unknown field, are refused with 400 `validation_error` naming them.
 */
export const IMMUTABLE_FIELDS = ['id', 'clientId', 'plan', 'status', 'provisioned_tenant_id', 'api_keys', 'created_at', 'updated_at'] as const;

/** The message of an `unrecognized_keys` issue: which fields are immutable, which are unknown. */
function refusedKeys(where: string, allowed: readonly string[]) {
  return (issue: { code?: string; keys?: string[] }) => {
    if (issue.code !== 'unrecognized_keys' || !issue.keys) return undefined;
    const fixed = issue.keys.filter((k) => (IMMUTABLE_FIELDS as readonly string[]).includes(k));
    const unknown = issue.keys.filter((k) => !fixed.includes(k));
    const parts = [
      ...(fixed.length ? [`${fixed.map((k) => `\`${k}\``).join(', ')} cannot be changed`] : []),
      ...(unknown.length ? [`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}`] : []),
    ];
    return `${where}: ${parts.join('; ')} (accepted: ${allowed.join(', ')})`;
  };
}

const UPDATABLE = ['clientName', 'domain', 'platform', 'environment', 'monthlyCreditCap', 'config'] as const;
const CONFIG_FIELDS = ['primaryColor', 'logo', 'companyName'] as const;

export const UpdateDeploymentBody = z
  .strictObject(
    {
      clientName: CreateDeploymentBody.shape.clientName.optional(),
      domain: CreateDeploymentBody.shape.domain.optional(),
      platform: PlatformField.optional(),
      environment: EnvironmentField.optional(),
      monthlyCreditCap: CreateDeploymentBody.shape.monthlyCreditCap.describe('New monthly cap in credits (null removes it); the client\'s next call sees it.'),
      config: z
        .strictObject(ConfigBody.partial().shape, { error: refusedKeys('config', CONFIG_FIELDS) })
        .optional()
        .describe('Fields given replace the current ones; a change of colour, logo or company name runs the branding step again (the current branding stays in use until it succeeds).'),
    },
    { error: refusedKeys('body', UPDATABLE) },
  )
  .describe(
    `Every field optional. Any other field is refused with 400 \`validation_error\` (never ignored): ${IMMUTABLE_FIELDS.map((k) => `\`${k}\``).join(', ')} cannot change, and unknown fields are named in the message.`,
  );

const ContrastSchema = z.object({
  requested: z.string().describe('Colour requested (`#RRGGBB`).'),
  effective: z.string().describe('Colour in use.'),
  text: z.string().describe('Text colour drawn on it (`#FFFFFF`).'),
  requested_ratio: z.number().describe('WCAG 2 contrast ratio of `requested` against `text`.'),
  effective_ratio: z.number().describe('Ratio of `effective` against `text` (at least 4.5, AA normal text).'),
  adjusted: z.boolean().describe('True when the requested colour failed AA and was darkened.'),
  method: z.string().nullable().describe('How it was adjusted (null when it was not).'),
});

export const StepEntry = z.object({
  run: z.number().int().describe('Provisioning run (1 = creation; retries and branding changes start new runs).'),
  step: z.enum(STEPS).describe('`tenant`, `api_keys` or `branding`.'),
  outcome: z.enum(['running', 'completed', 'failed', 'interrupted']).describe('`interrupted`: the service restarted while the step ran; it was tried again (next entry).'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  code: z.string().nullable().describe('Failure code: `logo_unreachable`, `logo_too_large`, `logo_unsupported_type`, `logo_too_big`, `internal`.'),
  reason: z.string().nullable().describe('Why the step failed.'),
});

export const DeploymentRecordSchema = z.object({
  id: z.string().meta({ example: 'dep_5b0c7e9a3f2d4c1e8a6b9d0f1e2c3a4b' }),
  clientId: z.string(),
  clientName: z.string(),
  domain: z.string().describe('ASCII (Punycode) form.').meta({ example: 'kyc.financiera-ejemplo.mx' }),
  domain_unicode: z.string().describe('Unicode form (as typed, normalised).'),
  platform: z.string(),
  environment: z.string(),
  plan: z.enum(PLAN_NAMES),
  config: z.object({ primaryColor: z.string().describe('As requested, normalised to `#RRGGBB`.'), logo: z.string(), companyName: z.string() }),
  monthlyCreditCap: z.number().int().nullable().describe('Credits per UTC month the client may spend of your credits (null = no cap).'),
  status: z.enum(['pending', 'provisioning', 'active', 'failed', 'deactivated']).describe('`pending` -> `provisioning` -> `active` | `failed`; `deactivated` is final.'),
  created_at: iso('Creation time.'),
  updated_at: iso('Last change.'),
  activated_at: z.string().nullable().describe('When it first became active.'),
  deactivated_at: z.string().nullable(),
  provisioned_tenant_id: z.string().nullable().describe('The client\'s tenant, once the `tenant` step completed.'),
  api_keys: z
    .array(
      z.object({
        key_id: z.string(),
        hint: z.string().describe('Prefix and last four characters.'),
        test: z.boolean().describe('`sk_test_` key.'),
        permissions: z.array(z.string()),
        key: z.string().optional().describe('The secret key: present in ONE answer only, the first status read after the keys were issued. Store it then; Sello keeps only its hash.'),
      }),
    )
    .describe('Keys issued to the client\'s tenant (a live and a test key, `read` + `write`).'),
  api_keys_revealed_at: z.string().nullable().describe('When the secrets were shown (null while they can still be shown once).'),
  run: z.number().int(),
  steps: z.array(StepEntry).describe('History of the provisioning steps of every run, oldest first.'),
  failure: z.object({ step: z.string(), code: z.string(), reason: z.string(), at: z.string() }).nullable().describe('The failed step of the current run (retry resumes there).'),
  branding: z
    .object({
      company_name: z.string(),
      primary_color: z.string().describe('Colour in use (after the contrast check).'),
      text_color: z.string(),
      logo_url: z.string().describe('Public path of the stored logo (PNG).'),
      logo_width: z.number().int(),
      logo_height: z.number().int(),
      contrast: ContrastSchema,
    })
    .nullable()
    .describe('Branding in use, once the `branding` step completed.'),
});

export const RecordResponse = z.object({ success: z.literal(true), data: DeploymentRecordSchema });

/** The structured error body (one definition for all routes: `apps/api/error-schemas.ts`). */
export { ErrorBody };

const err = (description: string) => ErrorBody.describe(description);
/** Error responses shared by the management routes, for the OpenAPI document. */
export const COMMON_ERRORS = {
  401: err('`unauthorized`: missing, invalid or revoked credentials.'),
  403: err('`insufficient_permissions`: the key lacks `admin`.'),
  429: err('`rate_limit_exceeded` / `concurrency_limit_exceeded`.'),
};
export const NOT_FOUND = { 404: err('`deployment_not_found`: unknown id, or another tenant\'s deployment.') };
export const BAD_FIELDS = {
  400: err('`validation_error`, `invalid_color`, `invalid_logo_url`, `invalid_domain`.'),
};

/** Runs `fn`, turning a {@link DeploymentError} into the structured {@link ApiError}. */
export async function mapErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof DeploymentError) throw new ApiError(DEPLOYMENT_ERRORS[error.code], error.code, error.message, error.details);
    throw error;
  }
}

/** Every management route: `admin` permission (issue 15), light rate class, structured errors. */
export const ADMIN_ROUTE = { auth: { permission: 'admin' as const }, rateClass: 'light' as const, errorShape: 'structured' as const };
