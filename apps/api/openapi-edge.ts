/**
 * What the edge adds to every route's answers, written into the OpenAPI document (`/openapi.json`) only:
 * the billing headers on every response (spec, Limits) and the edge's own refusals of an authenticated
 * route, in the error shape of the route's group (spec, Errors): 401 `unauthorized`, 403
 * `insufficient_permissions`, 429 `rate_limit_exceeded` / `concurrency_limit_exceeded` and, on priced
 * routes, the general `insufficient_credits` body (registry routes document their own 402). Routes keep
 * their serialization schemas as they are. Charged POSTs also document the `Idempotency-Key` header, its
 * 409 and 422 refusals and the `Idempotent-Replayed` header of a replay. This runs in @fastify/swagger's `transform`, after the zod
 * schemas were turned into JSON Schema, and never changes what a route writes.
 */
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { mayCharge } from './edge.ts';
import type { ErrorShape } from './errors.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.ts';

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];
type JsonSchema = Record<string, unknown>;

/** The billing headers of every answer (spec, Limits). */
const BILLING_HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Limit': { type: 'string', description: "The plan's monthly credit allowance (`unlimited` on Enterprise; 0 without a valid key)." },
  'X-RateLimit-Remaining': { type: 'string', description: 'Credits available now (`unlimited` on Enterprise).' },
  'X-RateLimit-Reset': { type: 'string', description: 'Unix time (seconds) when the monthly allowance renews.' },
  'X-RateLimit-Tier': { type: 'string', description: 'The plan (`free`, `basic`, `pro`, `enterprise`; `none` without a valid key).' },
  'X-RateLimit-Billing-Method': { type: 'string', description: '`credits`, or `admin_unlimited` on Enterprise.' },
  'X-Credit-Balance': { type: 'string', description: 'Credits available after this call.' },
  'X-Credit-Cost': { type: 'string', description: 'Credits this call cost (what it would have cost, on an insufficient-credits answer).' },
  'X-Request-Id': { type: 'string', description: 'Request id (echoes a valid incoming X-Request-Id).' },
};

/**
 * The `Idempotency-Key` request header of every charged POST (apps/api/idempotency.ts), one definition
 * for all of them. A header schema here only documents: the routes' validation never sees it.
 */
export const IDEMPOTENCY_KEY_PARAMETER: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
  pattern: '^[\\x20-\\x7E]+$',
  description:
    'Optional key (1-255 visible ASCII characters; a UUID v4 is a good choice) making a retry of this charged call safe (Stripe\'s convention, ' +
    'IETF draft-ietf-httpapi-idempotency-key-header; the draft\'s quoted form `"..."` names the same key). Keys are per tenant. ' +
    'Within 24 hours, the same key with the same request (method, path with query, and body: JSON by value, multipart by its fields and ' +
    "each file's name, type and bytes) answers the first 2xx answer again, with `Idempotent-Replayed: true`, and charges nothing (`X-Credit-Cost: 0`). " +
    'The same key with another request: 422 `idempotency_key_reused`. While the first call still runs: 409 `idempotency_key_in_use` ' +
    '(Retry-After). An empty key, one over 255 characters or with other characters: 400 `invalid_idempotency_key`. ' +
    'An answer that is not 2xx is not kept (it was not charged): retrying it with the same key runs the call again.',
  example: '5f0c6a7e-2b1d-4c1e-9a43-8d2f7f3b9c10',
};

/** Name of the shared parameter under `components.parameters`. */
export const IDEMPOTENCY_KEY_COMPONENT = 'IdempotencyKey';

/**
 * Post-processes the whole document (@fastify/swagger `transformObject`, after the per-route transform
 * wrote the header inline on each charged POST): one `components.parameters.IdempotencyKey`, and every
 * operation refers to it, so generated clients and readers see one definition.
 */
export function shareIdempotencyKeyParameter(doc: Partial<Record<string, unknown>>): Partial<Record<string, unknown>> {
  type Param = { name?: string; in?: string; $ref?: string } & JsonSchema;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { parameters?: Param[] }>>;
  let shared: Param | undefined;
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      if (!op || !Array.isArray(op.parameters)) continue;
      op.parameters = op.parameters.map((p) => {
        if (p.in !== 'header' || p.name?.toLowerCase() !== 'idempotency-key') return p;
        shared ??= p;
        return { $ref: `#/components/parameters/${IDEMPOTENCY_KEY_COMPONENT}` };
      });
    }
  }
  if (!shared) return doc;
  const components = { ...((doc.components ?? {}) as Record<string, unknown>) };
  components.parameters = { ...((components.parameters ?? {}) as Record<string, unknown>), [IDEMPOTENCY_KEY_COMPONENT]: { ...shared, name: 'Idempotency-Key' } };
  return { ...doc, components };
}

/** The header of a replayed answer. */
const IDEMPOTENT_REPLAYED: JsonSchema = {
  type: 'string',
  enum: ['true'],
  description: 'Present on an answer replayed for a repeated `Idempotency-Key` (the call ran once, earlier; this answer cost 0 credits).',
};

/** The error body of a group (spec, Errors), with `codes` as the documented values of its code field. */
function errorBody(shape: ErrorShape, codes: string[]): JsonSchema {
  const code = { type: 'string', enum: codes };
  if (shape === 'flat') return { type: 'object', required: ['success', 'error', 'message'], properties: { success: { const: false }, error: code, message: { type: 'string' } } };
  if (shape === 'registry') {
    const types = codes.map((c) => c.toUpperCase());
    return { type: 'object', required: ['success', 'status', 'type', 'message'], properties: { success: { const: false }, status: { const: 'ERROR' }, type: { type: 'string', enum: types }, message: { type: 'string' } } };
  }
  return {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { const: false },
      error: { type: 'object', required: ['code', 'message'], properties: { code, message: { type: 'string' }, details: { type: 'object' } } },
    },
  };
}

/** The general insufficient-credits answer (spec, "Insufficient credits (general)"). */
const INSUFFICIENT_CREDITS: JsonSchema = {
  type: 'object',
  required: ['success', 'error', 'message', 'error_code', 'details', 'retry_after'],
  properties: {
    success: { const: false },
    error: { const: 'insufficient_credits' },
    message: { type: 'string' },
    error_code: { const: 'INSUFFICIENT_CREDITS' },
    details: {
      type: 'object',
      properties: {
        credit_cost: { type: 'number' },
        credit_balance: { type: 'number' },
        needs_credits: { type: 'number' },
        upgrade_message: { type: 'string' },
        reset_date: { type: 'string', format: 'date-time' },
      },
    },
    retry_after: { type: 'number', description: 'Seconds until the monthly allowance renews.' },
  },
};

/** Documents `body` at `status`: alone, or beside the route's own answer at that status (either may come). */
function addAnswer(response: Record<string, JsonSchema>, status: string, description: string, body: JsonSchema): void {
  const own = response[status];
  if (!own) {
    response[status] = { description, ...body };
    return;
  }
  if ('content' in own) return; // a route that lists media types itself keeps its own entry
  const { description: ownDescription, ...ownBody } = own;
  response[status] = { description: `${ownDescription ? `${String(ownDescription)}; or ` : ''}${description}`, anyOf: [ownBody, body] };
}

/**
 * @fastify/swagger `transform`: the type provider's `jsonSchemaTransform`, then the edge's answers and the
 * billing headers added to the route's responses (codes a route documents itself are left as they are).
 */
export function edgeDocumentedTransform(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const out = jsonSchemaTransform(input);
  const schema = out.schema as JsonSchema & { response?: Record<string, JsonSchema>; hide?: boolean };
  if (!schema || schema.hide) return out;
  const config = (input.route.config ?? {}) as { auth?: false | { permission?: string; also?: readonly string[]; jwt?: boolean }; errorShape?: ErrorShape; billing?: { cost: number } };
  const response: Record<string, JsonSchema> = { ...(schema.response ?? {}) };
  let description = schema.description as string | undefined;
  if (config.auth !== false) {
    // Each operation names the permissions its key needs (the edge's default is `read`).
    const needed = [config.auth?.permission ?? 'read', ...(config.auth?.also ?? [])];
    const line = `**Permission:** an API key with ${needed.map((p) => `\`${p}\``).join(' and ')} (403 \`insufficient_permissions\` otherwise).`;
    description = description ? `${description}\n\n${line}` : line;
    const shape = config.errorShape ?? 'structured';
    const priced = mayCharge(config, input.url, input.route.method);
    response['401'] ??= { description: '`unauthorized`: missing, malformed, unknown, revoked or expired credentials.', ...errorBody(shape, ['unauthorized']) };
    response['403'] ??= { description: "`insufficient_permissions`: the key lacks the route's permission.", ...errorBody(shape, ['insufficient_permissions']) };
    if (!response['429']) {
      const limits = errorBody(shape, ['rate_limit_exceeded', 'concurrency_limit_exceeded']);
      response['429'] =
        priced && shape !== 'registry'
          ? { description: "`rate_limit_exceeded` (with Retry-After) or `concurrency_limit_exceeded`, in the group's error shape; or `insufficient_credits` (spec, Insufficient credits).", anyOf: [limits, INSUFFICIENT_CREDITS] }
          : { description: '`rate_limit_exceeded` (with Retry-After) or `concurrency_limit_exceeded`.', ...limits };
    }
  }
  // Charged POSTs take an Idempotency-Key (apps/api/idempotency.ts): the header, its refusals and the replay marker.
  const keyed = config.auth !== false && mayCharge(config, input.url, input.route.method) && [input.route.method].flat().includes('POST');
  let headers = schema.headers as JsonSchema | undefined;
  if (keyed) {
    const shape = config.errorShape ?? 'structured';
    addAnswer(response, '409', '`idempotency_key_in_use`: a request with this `Idempotency-Key` is still running (with Retry-After).', errorBody(shape, ['idempotency_key_in_use']));
    addAnswer(response, '422', '`idempotency_key_reused`: this `Idempotency-Key` was used with a different request within 24 hours.', errorBody(shape, ['idempotency_key_reused']));
    const own = (headers ?? { type: 'object', properties: {} }) as JsonSchema & { properties?: Record<string, JsonSchema> };
    headers = { ...own, type: 'object', properties: { ...(own.properties ?? {}), 'Idempotency-Key': IDEMPOTENCY_KEY_PARAMETER } };
  }
  for (const code of Object.keys(response)) {
    const replayable = keyed && code.startsWith('2');
    response[code] = { ...response[code], headers: replayable ? { ...BILLING_HEADERS, 'Idempotent-Replayed': IDEMPOTENT_REPLAYED } : BILLING_HEADERS };
  }
  return { ...out, schema: { ...schema, ...(headers ? { headers } : {}), ...(description ? { description } : {}), response } };
}
