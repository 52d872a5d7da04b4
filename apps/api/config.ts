import { z } from 'zod';
import { isDnsServerSpec } from '../../infra/email-verifier/dns-resolver.ts';
import { parsePublicOrigins } from './public-origin.ts';

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
  /** Address to listen on: loopback only unless set (`0.0.0.0` or `::` serves every interface, e.g. behind a load balancer). */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Where the embedded adapters keep their files (event log, read models, blobs, outbox, index). */
  DATA_DIR: z.string().default('./data'),

  // --- adapter selection: one variable per port, read only by its factory `infra/<port>/index.ts` ---
  /** Event store: `sqlite` (embedded default, `DATA_DIR/events.sqlite`) or `postgres` (`DATABASE_URL`, `DATABASE_SCHEMA`). */
  EVENT_STORE: z.enum(['sqlite', 'postgres']).default('sqlite'),
  /** Read models: `sqlite` (`DATA_DIR/read-models.sqlite`) or `postgres` (`DATABASE_URL`); unset = `postgres` when DATABASE_URL is set. */
  READ_MODELS: z.enum(['sqlite', 'postgres']).optional(),
  /**
   * Job queue: `worker-threads` (in-process queue feeding `WORKER_THREADS` inference threads), `bullmq` (Redis
   * `REDIS_URL`) or `kafka` (`KAFKA_BROKERS`, images by claim check through the blob store); with either of the
   * last two, `npm run start:worker` processes run the jobs.
   */
  JOB_QUEUE: z.enum(['worker-threads', 'bullmq', 'kafka']).default('worker-threads'),
  /**
   * Workflow engine: `sqlite` (`DATA_DIR/workflows.sqlite`, in-process scheduler) or `temporal` (a Temporal
   * server at `TEMPORAL_ADDRESS`, shared by several processes; every API process runs a worker).
   */
  WORKFLOWS: z.enum(['sqlite', 'temporal']).default('sqlite'),
  /** Vector index of the biometric templates: `embedded` (usearch HNSW + SQLite under `DATA_DIR/vectors`). */
  VECTOR_INDEX: z.enum(['embedded']).default('embedded'),
  /** Blob store: `local` (`DATA_DIR/blobs`) or `s3` (any S3-compatible server: `S3_ENDPOINT`, `S3_BUCKET`, keys). */
  BLOB_STORE: z.enum(['local', 's3']).default('local'),
  /** Outgoing mail: `outbox` (`.eml` files in `DATA_DIR/outbox`) or `smtp` (`SMTP_URL`); unset = `smtp` when SMTP_URL is set. */
  MAIL: z.enum(['outbox', 'smtp']).optional(),
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
  /**
   * With `PUBLIC_BASE_URL` unset: comma-separated origins (`https://firma.example.mx,https://kyc.cliente.mx`)
   * whose host a request may name in `Host` to get its links on that origin; any other `Host` gets links on
   * the address the server bound. Links never take the request's host (apps/api/public-origin.ts).
   */
  PUBLIC_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parsePublicOrigins(v);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** Requests per minute one client address may make to the public signing pages (`/sign/*`, previews, page images). */
  PUBLIC_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(300),
  /** Requests per minute to one document's public pages, all addresses together. */
  PUBLIC_RATE_LIMIT_PER_DOCUMENT: z.coerce.number().int().min(1).default(600),
  /** Requests per minute one client address may make to `/dashboard/login`. */
  DASHBOARD_LOGIN_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  /** Create a Free tenant and a test key on first start with an empty data directory. */
  BOOTSTRAP: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Remaining credits (fraction of the monthly allowance) under which `user.credits.low` fires. */
  CREDITS_LOW_FRACTION: z.coerce.number().min(0).max(1).default(0.1),

  // --- face recognition (docs/face.md) ---
  /**
   * Face detector of the single-face operations (applied in each inference worker by `configure`):
   * `auto` (Tiny Face Detector, SSD MobileNet v1 when it finds nothing), `ssd` or `tiny`.
   */
  FACE_DETECTOR: z.enum(['auto', 'ssd', 'tiny']).default('auto'),
  /**
   * `true`: an API process sends one `face.warmup` job per worker thread at start, so the face models are
   * loaded (about 1.5 s of CPU and 300 MB per worker) before the first face request instead of during it.
   * Off by default: a deployment or test server that never serves faces does not pay for them.
   */
  FACE_PRELOAD: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),

  // --- registry lookups (RENAPO/INE, docs/registry.md) ---
  /** `sandbox` (embedded default: synthetic fixture registry, answers marked) or `http` (certified provider). */
  REGISTRY_PROVIDER: z.enum(['sandbox', 'http']).default('sandbox'),
  /** Provider base URL (required when REGISTRY_PROVIDER=http). */
  REGISTRY_PROVIDER_URL: optionalString,
  /** Provider credentials: a Bearer API key, or username + password for HTTP Basic. Never logged. */
  REGISTRY_PROVIDER_API_KEY: optionalString,
  REGISTRY_PROVIDER_USERNAME: optionalString,
  REGISTRY_PROVIDER_PASSWORD: optionalString,
  /** Per-call timeout of the provider, ms. */
  REGISTRY_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8000),
  /** Retries of retry-safe provider failures (connection reset/refused, 502/503/504/429). */
  REGISTRY_PROVIDER_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** Consecutive failed lookups that open the circuit breaker; how long it stays open (ms). */
  REGISTRY_BREAKER_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  REGISTRY_BREAKER_HALF_OPEN_MS: z.coerce.number().int().min(100).default(30_000),
  /** Extra sandbox fixture files (JSON or CSV), comma-separated. */
  REGISTRY_SANDBOX_FIXTURES: optionalString,
  /** HMAC key of lookup fingerprints in events; unset = a random key kept in DATA_DIR/registry-fingerprint.key. */
  REGISTRY_FINGERPRINT_KEY: optionalString,
  // --- email (issue 6): e-mail verifier ---------------------------------------------------------------
  /** Recursive DNS servers for MX look-ups, comma-separated `ip`, `ip:port` or `[ipv6]:port`; unset = the system's. */
  EMAIL_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''))
    .refine((list) => list.every(isDnsServerSpec), { message: 'each server must be ip, ip:port or [ipv6]:port' }),
  /** Per-attempt DNS timeout, ms. */
  EMAIL_DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(10_000).default(1500),
  /** Passes over the DNS server list before a look-up is an upstream ERROR. */
  EMAIL_DNS_ATTEMPTS: z.coerce.number().int().min(1).max(5).default(2),
  /** Domains kept in the DNS cache (TTL-honouring, least recently used evicted). */
  EMAIL_DNS_CACHE_SIZE: z.coerce.number().int().min(0).default(10_000),
  /** Name sent in SMTP EHLO/HELO by the reachability probe (use a public name with matching reverse DNS). */
  EMAIL_SMTP_HELO_NAME: z.string().min(1).default('localhost'),
  /** Envelope sender of the probe's MAIL FROM (no message is ever sent). */
  EMAIL_SMTP_MAIL_FROM: z.string().min(3).default('verify@localhost'),
  /** Port the probe connects to on the MX hosts. */
  EMAIL_SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  EMAIL_SMTP_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(10_000).default(1500),
  EMAIL_SMTP_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(10_000).default(1500),
  /** Budget of the whole probe, ms (the spec promises 1-5 s). */
  EMAIL_SMTP_TOTAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(5_000).default(4500),
  /** Concurrent probe sessions against one MX address. */
  EMAIL_SMTP_MAX_SESSIONS_PER_HOST: z.coerce.number().int().min(1).max(50).default(4),
  /** Let the probe connect to loopback/private addresses (tests only: otherwise an MX record could aim it inside). */
  EMAIL_SMTP_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** Check Gravatar (a HEAD request per address to the base URL); off by default. */
  EMAIL_GRAVATAR: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  EMAIL_GRAVATAR_BASE_URL: z.string().url().default('https://gravatar.com/avatar/'),
  EMAIL_GRAVATAR_TIMEOUT_MS: z.coerce.number().int().min(50).max(5_000).default(800),
  /** Addresses verified concurrently inside one batch. */
  EMAIL_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(16),
  // --- end email --------------------------------------------------------------------------------------
  // --- webhooks (docs/webhooks.md) ---
  /** AES-256-GCM key sealing endpoint secrets (64 hex chars or base64 of 32 bytes); unset = generated once into DATA_DIR/webhook-secret.key. */
  WEBHOOK_SECRET_KEY: optionalString,
  /** Comma-separated CIDRs exempt from the SSRF guard (e.g. `10.0.0.0/8` for an internal receiver). */
  WEBHOOK_ALLOW_CIDRS: optionalString,
  /** PEM file of extra CA certificates trusted for receivers (added to Node's roots). */
  WEBHOOK_CA_CERTS: optionalString,
  /** Per-attempt time limit in ms (spec: 10 s). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Attempts of one endpoint in flight at once. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** How often (ms) the embedded workflow engine looks for due timers. */
  WORKFLOW_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(250),
  // --- OCR (docs/ocr.md). Handed to the inference workers with the rest of this configuration; applied by
  // each worker thread through `configure` (models/ocr/jobs.ts).
  /** ONNX Runtime intra-op threads per worker for the PaddleOCR recogniser and direction classifier. */
  OCR_ONNX_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** ONNX Runtime intra-op threads of the OCR text detector per worker (idle threads block, never spin). */
  OCR_DET_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** Threads recognising one page's text lines per worker: the worker plus OCR_REC_THREADS - 1 helper threads. */
  OCR_REC_THREADS: z.coerce.number().int().min(1).max(8).default(2),
  /** Tesseract threads per worker reading a page's name/address rows in parallel. */
  OCR_TESSERACT_WORKERS: z.coerce.number().int().min(1).max(8).default(2),
  /** Longest side (px) fed to the text detector. */
  OCR_DET_MAX_SIDE: z.coerce.number().int().min(320).max(2048).default(960),
  /** Longest side (px) fed to the text detector when an INE back's MRZ rows are looked for first (its largest print). */
  OCR_MRZ_DET_MAX_SIDE: z.coerce.number().int().min(320).max(2048).default(640),
  /** `0` turns off the Tesseract Spanish re-read of name/address rows. */
  OCR_SPANISH_REREAD: z.enum(['0', '1']).default('1'),
  /** MRZ row decoding: `constrained` (posteriors at the layout's length, docs/mrz.md) or `greedy` (PaddleOCR's own; for comparisons). */
  OCR_MRZ_DECODER: z.enum(['constrained', 'greedy']).default('constrained'),
  /** Crop height factors (comma-separated, tried in order, each 0.5-3) of the whole-row re-read of MRZ rows that fail their check digits. */
  OCR_MRZ_ROW_SCALES: z
    .string()
    .default('1.3,1,1.15,1.45,1.6')
    .transform((s) => s.split(',').map((x) => Number(x.trim())))
    .pipe(z.array(z.number().min(0.5).max(3)).min(1).max(8)),
  // --- end OCR ----------------------------------------------------------------------------------------

  // --- scaled out (docs/operations.md): Redis for limits and the job queue ---
  /** Rate and concurrency limits: `memory` (each process its own) or `redis` (`REDIS_URL`, exact across instances); unset = `redis` when REDIS_URL is set. */
  RATE_LIMITER: z.enum(['memory', 'redis']).optional(),
  /** Redis for the rate limiter and the BullMQ job queue, e.g. `redis://127.0.0.1:6379`. */
  REDIS_URL: optionalString,
  /** Prefix of every Redis key (several deployments, or tests, may share one Redis). */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/).default('sello:'),
  /**
   * `Idempotency-Key` records of charged calls (apps/api/idempotency.ts): `sqlite` (`DATA_DIR/idempotency.sqlite`)
   * or `redis` (`REDIS_URL`, shared by every API process); unset = `redis` when REDIS_URL is set.
   */
  IDEMPOTENCY_STORE: z.enum(['sqlite', 'redis']).optional(),
  /** How long a completed call's answer is replayed to a retry with its key, ms (Stripe and the IETF draft: 24 hours). */
  IDEMPOTENCY_TTL_MS: z.coerce.number().int().min(1000).default(24 * 3_600_000),
  /** A key whose call never finished (its process died) is free again after this many ms. */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(1000).default(300_000),
  /** A concurrency slot held by a process that died is freed after this many ms (Redis limiter). */
  RATE_LIMIT_SLOT_TTL_MS: z.coerce.number().int().min(1000).default(120_000),
  /**
   * Prefix of the job queue's names: BullMQ's Redis keys (`JOB_QUEUE=bullmq`), or Kafka's topics
   * (`<prefix>.jobs`, `<prefix>.jobs.dlt`, `<prefix>.replies.<instance>`), worker group (`<prefix>.workers`)
   * and claim-check blobs (`job-claims/<prefix>/…`) (`JOB_QUEUE=kafka`). Several deployments, or tests, can
   * share one server.
   */
  JOB_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).refine((p) => p !== '.' && p !== '..', 'not . or ..').default('sello'),
  /** Waiting jobs beyond which inference routes answer 503 with Retry-After (back-pressure). */
  JOB_QUEUE_MAX_WAITING: z.coerce.number().int().min(1).default(1000),
  /** Attempts of a job whose worker crashed or failed without a domain code, before it is dead-lettered. */
  JOB_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** A job's lock, ms: a worker that died (SIGKILL) gives its jobs to another worker after this long. */
  JOB_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  // Kafka job queue (`JOB_QUEUE=kafka`, docs/operations.md "Kafka client"); JOB_QUEUE_PREFIX, JOB_TIMEOUT_MS,
  // JOB_QUEUE_MAX_WAITING and JOB_ATTEMPTS apply to it as to BullMQ.
  /** Bootstrap brokers, comma-separated `host:port` (e.g. `kafka-1:9092,kafka-2:9092`). */
  KAFKA_BROKERS: optionalString.pipe(
    z
      .string()
      .transform((s) => s.split(',').map((b) => b.trim()).filter((b) => b !== ''))
      .pipe(
        z
          .array(z.string().refine((b) => /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([1-9][0-9]{0,4})$/.test(b) && Number(b.slice(b.lastIndexOf(':') + 1)) <= 65535, 'each broker must be host:port'))
          .min(1),
      )
      .optional(),
  ),
  /** Partitions of `<prefix>.jobs` when this deployment creates it: the most worker processes that take jobs at once. */
  KAFKA_JOB_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(12),
  /** A worker process that stops heartbeating (SIGKILL, lost machine) loses its partitions after this long, ms (the broker's `group.min.session.timeout.ms`, default 6000, is the floor). */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(1_800_000).default(10_000),
  /** Longest an HTTP request may take end to end, ms (Node's `server.requestTimeout`); past it the socket is closed. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  /** S3-compatible endpoint of `BLOB_STORE=s3`, e.g. `https://minio.internal:9000`. */
  S3_ENDPOINT: optionalString,
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/).default('sello'),
  S3_REGION: z.string().default('us-east-1'),
  /** Credentials of `BLOB_STORE=s3`. Never logged. */
  S3_ACCESS_KEY: optionalString,
  S3_SECRET_KEY: optionalString,
  /** Key prefix inside the bucket (several deployments may share one bucket). */
  S3_PREFIX: optionalString,
  /** Temporal frontend `host:port` of `WORKFLOWS=temporal`, e.g. `temporal.internal:7233`. */
  TEMPORAL_ADDRESS: optionalString,
  /** Temporal namespace of this deployment's workflows. */
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Task queue of this deployment's workflows and activities (every process of one deployment uses the same). */
  TEMPORAL_TASK_QUEUE: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/).default('sello'),
  /**
   * Longest a Temporal timer sleeps before the engine's clock is read again (ms). Unset in production (the
   * clock is the system's, as the server's: a timer sleeps until due); tests that move the platform's clock
   * by hand set it, so timers follow that clock.
   */
  TEMPORAL_CLOCK_RECHECK_MS: z.coerce.number().int().min(10).max(3_600_000).optional(),
  // --- end scaled out -----------------------------------------------------------------------------------
  // --- Credit reservations (issue 18): who holds an open reservation, and until when.
  /**
   * `single`: one API process per store (the embedded deployment): at start-up every reservation held by
   * an earlier incarnation (a process that died mid-request) is released at once. `shared`: several API
   * processes share the store: a reservation is released when its lease expires. Default: `single` with
   * the SQLite event store, `shared` with any other.
   */
  CREDIT_HOLDERS: z.enum(['single', 'shared']).optional(),
  /** Lease of a credit reservation (ms): the longest a call may hold its credits before any process may release them. */
  CREDIT_RESERVATION_LEASE_MS: z.coerce.number().int().min(1_000).default(300_000),
  /**
   * Where an API process writes usage events and runs the usage-only projections: `thread` (a worker
   * thread with its own store connections, off the HTTP thread) or `inline` (on the HTTP thread).
   */
  USAGE_WRITER: z.enum(['thread', 'inline']).default('thread'),
  /**
   * How many nice steps (Linux, 0-19) the usage-writer thread runs below the HTTP thread: where the
   * cores are busy the thread that answers requests runs first and the writer appends and projects in
   * the gaps, in larger batches (issue 18); while it lags more than a second it runs at the HTTP
   * thread's priority (where permitted). 0 = always the HTTP thread's priority. Ignored off Linux.
   */
  USAGE_WRITER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * `true`: while it keeps up, the usage-writer thread runs under Linux's `SCHED_IDLE` policy (only on
   * otherwise idle cores; set with util-linux's `chrt`, where the process holds CAP_SYS_NICE) instead of
   * `USAGE_WRITER_NICE` steps below the HTTP thread. Ignored off Linux.
   */
  USAGE_WRITER_IDLE: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  // --- signing (issue 13; docs/signing.md) -----------------------------------------------------------
  /** Operator-supplied PKCS#12 (key + certificate chain) for PAdES signatures; unset = a self-issued CA and certificate generated into DATA_DIR. */
  SIGNING_P12_PATH: optionalString,
  /** Password of SIGNING_P12_PATH. */
  SIGNING_P12_PASSWORD: optionalString,
  /** RFC 3161 timestamp authority (HTTP POST); set = PAdES B-T signatures, unset = B-B. A TSA that does not answer fails finalize (503), never the local clock. */
  SIGNING_TSA_URL: z.string().url().optional(),
  /** Per-attempt limit (ms) of a TSA request. */
  SIGNING_TSA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Attempts of a TSA request before finalize answers 503 `timestamp_unavailable`. */
  SIGNING_TSA_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /**
   * NOM-151-SCFI-2016 conservation provider's RFC 3161 time-stamp service (HTTP POST): set = at finalize the
   * SHA-256 of every document's final PDF is time-stamped there and the token kept as its conservation record
   * (`GET /v1/signing/documents/{id}/conservation`). A provider that does not answer fails finalize (503
   * `conservation_unavailable`), never the local clock. Unset = no conservation record.
   */
  CONSERVATION_TSA_URL: z.string().url().optional(),
  /** Per-attempt limit (ms) of a conservation time-stamp request. */
  CONSERVATION_TSA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Attempts of a conservation time-stamp request before finalize answers 503 `conservation_unavailable`. */
  CONSERVATION_TSA_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /**
   * e.firma (issue 29; docs/signing.md "e.firma: trust list and OCSP"): PEM bundle(s) of the SAT's e.firma
   * root and intermediate CAs that a signer's certificate must chain to, several files separated by the
   * platform's path delimiter (`:` on Linux). Unset = signing with e.firma is refused (503 `efirma_not_configured`).
   */
  EFIRMA_TRUST_LIST: optionalString,
  /** OCSP responder asked for a signer certificate's revocation status; overrides the certificate's own (authorityInfoAccess). The SAT's: `https://cfdi.sat.gob.mx/edofiel`. */
  EFIRMA_OCSP_URL: z.string().url().optional(),
  /** Per-attempt limit (ms) of an OCSP request. */
  EFIRMA_OCSP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Attempts of an OCSP request before the signature is refused with 503 `efirma_ocsp_unavailable` (never accepted unchecked). */
  EFIRMA_OCSP_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(2),
  /** Lifetime (s) of a `public-preview` URL. */
  SIGNING_PREVIEW_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(900),
  /** Days a signing document stays open when no `expiry_date` is given. */
  SIGNING_DEFAULT_EXPIRY_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  // --- end signing ------------------------------------------------------------------------------------
  // --- deployments (docs/deployments.md) ---
  /** AES-256-GCM key sealing a deployment's first API keys until shown once (64 hex or base64 of 32 bytes); unset = generated into DATA_DIR/deployment-secret.key. */
  DEPLOYMENT_SECRET_KEY: optionalString,
  /** Time limit of the logo fetch (connect to end of body), ms. */
  DEPLOYMENT_LOGO_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // --- end deployments ---
  // --- privacy (docs/privacy.md) ---
  /** AES-256 master key wrapping the crypto-shredding data keys (64 hex or base64 of 32 bytes); unset = generated into DATA_DIR/privacy-master.key. */
  PRIVACY_MASTER_KEY: optionalString,
  /** Master keys being rotated out (comma-separated, same forms): they unwrap data keys until `npm run cli -- privacy rotate-master-key` re-wraps them. */
  PRIVACY_MASTER_KEY_PREVIOUS: optionalString,
  /** `1`: appending an event type or data field missing from domain/privacy/classification.ts fails (the test suite sets it). */
  SELLO_PRIVACY_STRICT: z.enum(['0', '1']).default('0'),
  // --- end privacy ---
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
