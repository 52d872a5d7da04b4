import { errorSchema } from '../../error-schemas.ts';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../../../domain/webhooks/catalog.ts';
import { WEBHOOK_ERRORS, WebhookError } from '../../../../domain/webhooks/errors.ts';
import { ApiError } from '../../errors.ts';

/** Largest `per_page` of webhook lists (the spec leaves it unshown; same as signing lists). */
export const MAX_PER_PAGE = 100;

const iso = (d: string) => z.string().describe(d).meta({ example: '2026-06-01T12:00:00.000Z' });

export const EndpointIdParams = z.object({
  endpoint_id: z.string().min(1).max(100).describe('Webhook endpoint id (`whe_…`).').meta({ example: 'whe_3f2a9c1b7d4e5f60718293a4' }),
});

export const EventsField = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .describe('Event types to receive; names from `GET /v1/webhooks/events`.')
  .meta({ example: ['face.verified', 'ocr.completed'] });
export const UrlField = z.string().min(1).max(2048).describe('HTTPS URL receiving POST deliveries.').meta({ example: 'https://hooks.example.com/sello' });
export const DescriptionField = z.string().max(500).nullable().describe('Free text for your own reference.').meta({ example: 'Production KYC receiver' });
export const ActiveField = z.boolean().describe('Inactive endpoints receive no deliveries.').meta({ example: true });

export const Paging = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).describe('1-based page number.'),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(25).describe(`Items per page (max ${MAX_PER_PAGE}).`),
};

export const Pagination = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int().describe('Items matching the filters, over all pages.'),
});

export const EndpointItem = z.object({
  id: z.string().meta({ example: 'whe_3f2a9c1b7d4e5f60718293a4' }),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  active: z.boolean(),
  created_at: iso('Creation time (ISO 8601 UTC).'),
  updated_at: iso('Last change (ISO 8601 UTC).'),
  last_delivery: z.string().nullable().describe('Time of the latest attempt sent to this endpoint; null before the first.'),
  success_rate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe('Succeeded / finished deliveries (0-1); deliveries still retrying do not count; null before the first finished one.')
    .meta({ example: 0.98 }),
});

export const DeliveryItem = z.object({
  id: z.string().describe('Delivery id, also sent as `X-Sello-Delivery` and `webhook-id`.').meta({ example: 'whd_5e1c…' }),
  event_id: z.string().describe('Event id, the body\'s `id`.'),
  event_type: z.string().meta({ example: 'face.verified' }),
  status: z
    .enum(['success', 'failed', 'pending'])
    .describe('`success` (2xx within 10 s), `failed` (5 attempts failed, 410, or endpoint removed), `pending` while retries remain (extension).'),
  attempts: z.number().int().describe('Attempts made so far (1-5).'),
  response_status: z.number().int().nullable().describe('HTTP status of the latest attempt; null when no answer came.'),
  response_time: z.number().nullable().describe('Milliseconds the latest attempt took.'),
  error_message: z.string().nullable().describe('Why the latest attempt failed; null on success.'),
  created_at: iso('When the delivery was created.'),
  last_attempt: z.string().nullable().describe('When the latest attempt was sent.'),
  next_attempt_at: z.string().nullable().describe('When the next attempt is due (extension); null when none.'),
});

/** Runs `fn`, turning a {@link WebhookError} into the structured {@link ApiError}. */
export async function mapErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof WebhookError) throw new ApiError(WEBHOOK_ERRORS[error.code], error.code, error.message, error.details);
    throw error;
  }
}

/**
 * The error answers of the webhook routes for their OpenAPI entries (structured shape; see
 * `USAGE_ERROR_RESPONSES` for why only codes whose bodies carry nothing beyond `error{code, message, details}`).
 */
export const WEBHOOK_ERROR_RESPONSES = {
  400: errorSchema(['invalid_request', 'invalid_url', 'invalid_event_type', 'url_not_allowed', 'url_unresolvable', 'validation_error']),
  404: errorSchema(['endpoint_not_found']),
  409: errorSchema(['endpoint_limit_reached']),
} as const;
