/**
 * Shared pieces of the fingerprint-matching routes: use-case dependencies, the probe (an `image` file run
 * through the workers' `fingerprint.extract` job, or an ISO/IEC 19794-2 `template` file), error mapping
 * and the OpenAPI error schema.
 */
import { z } from 'zod';
import { errorSchema } from '../../error-schemas.ts';
import type { FastifyRequest } from 'fastify';
import type { FingerprintDeps } from '../../../../domain/fingerprint/deps.ts';
import { FINGERPRINT_ERRORS, FingerprintError } from '../../../../domain/fingerprint/errors.ts';
import { parseIsoTemplate } from '../../../../domain/fingerprint/iso.ts';
import type { FingerprintTemplate } from '../../../../domain/fingerprint/template.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import type { MultipartBody } from '../../multipart.ts';
import { readImageForm, numberField } from '../../forms.ts';
import { runMappedJob, type JobErrorMapping } from '../../job-errors.ts';
import { fingerprintCapability, fingerprintJobs } from '../../../capabilities/fingerprint.ts';

const JOB_TIMEOUT_MS = 30_000;

export function fingerprintDeps(ctx: Platform): FingerprintDeps {
  return ctx.use(fingerprintCapability);
}

/** Runs a use case, turning its FingerprintError into the route's ApiError. */
export async function run<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof FingerprintError) throw new ApiError(error.status, error.code, error.message, error.details ?? {});
    throw error;
  }
}

/** Reads the multipart body (each file at most 5 MB: 413 `image_too_large` while streaming). */
export function readForm(request: FastifyRequest): Promise<MultipartBody> {
  return readImageForm(request, 'Expected a multipart/form-data body with an image or template file', { field: 'image' });
}

export function field(form: MultipartBody, name: string): string | undefined {
  const v = form.fields.get(name);
  return v && v.length ? v[v.length - 1] : undefined;
}

const JOB_ERRORS: JobErrorMapping = {
  statuses: FINGERPRINT_ERRORS,
  unavailable: (reason) => new ApiError(503, 'service_unavailable', reason === 'timeout' ? 'Fingerprint processing timed out; retry later' : 'Fingerprint processing is busy; retry shortly', {}, {}, { 'Retry-After': '2' }),
};

/** The probe of a form: `image` (with optional `dpi`) through the extraction job, or an ISO `template`. */
export async function probeOf(ctx: Platform, form: MultipartBody): Promise<{ template: FingerprintTemplate; source: 'image' | 'iso'; fingerPosition?: number }> {
  const image = form.files.get('image');
  const iso = form.files.get('template');
  if (image && iso) throw new ApiError(400, 'invalid_request', 'Send either an image or a template, not both', { field: 'template' });
  if (iso && iso.data.length > 0) {
    const rec = await run(() => parseIsoTemplate(new Uint8Array(iso.data.buffer, iso.data.byteOffset, iso.data.length)));
    return { template: rec.template, source: 'iso', fingerPosition: rec.fingerPosition };
  }
  if (!image || image.data.length === 0) throw new ApiError(400, 'missing_image', 'The multipart field "image" (PNG, JPEG, TIFF, BMP or WSQ) or "template" (ISO/IEC 19794-2) is required', { field: 'image' });
  const dpi = numberField(form.fields, 'dpi', { min: 250, max: 1500 });
  const out = await runMappedJob(ctx.jobs, fingerprintJobs['fingerprint.extract'], { image: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length), ...(dpi !== undefined ? { dpi } : {}) }, JOB_ERRORS, undefined, { timeoutMs: JOB_TIMEOUT_MS });
  return { template: out.template, source: 'image' };
}

export { errorSchema };

export const probeErrorResponses = {
  400: errorSchema(['invalid_request', 'validation_error', 'missing_image', 'unsupported_format', 'invalid_template', 'image_too_small', 'blank_image', 'not_a_fingerprint', 'insufficient_quality']).describe(
    '`invalid_request`: a field is malformed (`details.field`); `missing_image`: no `image` or `template` part; `unsupported_format`: not PNG/JPEG/TIFF/BMP/WSQ or corrupt; ' +
      '`invalid_template`: not a valid ISO/IEC 19794-2:2005 record; `image_too_small`: under 100×100 px at 500 ppi; `blank_image`: no print; ' +
      '`not_a_fingerprint`: no ridge pattern (e.g. a face photo); `insufficient_quality`: too few reliable minutiae.',
  ),
  413: errorSchema(['image_too_large']).describe('Over 5 MB, over 4,000,000 pixels, or over 2,000 px a side at 500 ppi.'),
  503: errorSchema(['service_unavailable']).describe('Extraction did not finish in time; retry.'),
};

export const PROBE_FIELDS =
  '`image` file (PNG, JPEG, TIFF, BMP or WSQ, at most 5 MB; a 500 ppi print, or declare its resolution in `dpi`, 250-1500, and it is resampled to 500 ppi) ' +
  'or `template` file (an ISO/IEC 19794-2:2005 minutiae record)';
