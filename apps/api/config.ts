import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/**
 * Configuration from environment variables, validated at start-up (a bad value stops the server with a
 * clear message). Every port defaults to its embedded adapter; setting the scaled-out variable switches
 * that port alone.
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Where the embedded adapters keep their files (event log, read models, blobs, outbox, index). */
  DATA_DIR: z.string().default('./data'),
  /** PostgreSQL for the read models (scaled-out adapter); unset = SQLite under DATA_DIR. */
  DATABASE_URL: optionalString,
  /** Schema of the PostgreSQL read models. */
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('public'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Inference worker threads (default: number of cores). */
  WORKER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** Per-job timeout of inference jobs, ms. */
  JOB_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Dashboard session JWT (email endpoints): HS256 shared secret ... */
  JWT_SECRET: optionalString,
  /** ... or an Ed25519 public key (PEM, SPKI) for EdDSA tokens. */
  JWT_PUBLIC_KEY: optionalString,
  /** SMTP URL for outgoing mail; unset = `.eml` files in DATA_DIR/outbox. */
  SMTP_URL: optionalString,
  MAIL_FROM: z.string().default('Sello <no-reply@sello.local>'),
  /** Public base URL used in links (signing pages, downloads). */
  PUBLIC_BASE_URL: optionalString,
  /** Create a Free tenant and a test key on first start with an empty data directory. */
  BOOTSTRAP: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Remaining credits (fraction of the monthly allowance) under which `user.credits.low` fires. */
  CREDITS_LOW_FRACTION: z.coerce.number().min(0).max(1).default(0.1),
  // --- OCR (docs/ocr.md). Read by the inference workers from process.env; validated here at start-up.
  /** ONNX Runtime intra-op threads per worker for the PaddleOCR models. */
  OCR_ONNX_THREADS: z.coerce.number().int().min(1).max(16).default(2),
  /** Longest side (px) fed to the text detector. */
  OCR_DET_MAX_SIDE: z.coerce.number().int().min(320).max(2048).default(960),
  /** `0` turns off the Tesseract Spanish re-read of name/address rows. */
  OCR_SPANISH_REREAD: z.enum(['0', '1']).default('1'),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Parses `env`; throws an Error listing every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Config, unknown>> = {}): Config {
  const result = ConfigSchema.safeParse({ ...env, ...overrides });
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
