import path from 'node:path';
import { loadOrCreateKeyFile } from '../../infra/secrets/key-file.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { bindProcessManager, type Clock, type RegisteredProcessManager, type WorkflowEngine } from '../../infra/ports/workflows.ts';
import { createSecretBox, parseSecretKey } from '../../domain/webhooks/secret-box.ts';
import { createWebhookActivities } from './activities.ts';
import { startWebhookFanout, type WebhookFanout } from './fanout.ts';
import { webhookDeliveryProcess } from './process.ts';
import { createWebhookSender, type WebhookSender } from './sender.ts';
import { createWebhookService, type WebhookService } from './service.ts';

/** Settings of the webhooks group (env names in brackets; see `apps/api/config.ts`). */
export interface WebhooksConfig {
  /** [`WEBHOOK_SECRET_KEY`] 32-byte AES-256-GCM key (64 hex chars or base64) sealing endpoint secrets. */
  secretKey?: string;
  /** Where the generated key is kept when `secretKey` is unset (`<DATA_DIR>/webhook-secret.key`). */
  dataDir?: string;
  /** [`WEBHOOK_ALLOW_CIDRS`] CIDRs exempt from the SSRF guard. */
  allowCidrs?: string;
  /** [`WEBHOOK_CA_CERTS`] PEM file of extra trusted CAs. */
  caCertsPath?: string;
  /** [`WEBHOOK_TIMEOUT_MS`] per-attempt time limit; default 10,000 (spec). */
  timeoutMs?: number;
  /** [`WEBHOOK_ENDPOINT_CONCURRENCY`] attempts of one endpoint in flight at once; default 4. */
  perEndpointConcurrency?: number;
}

/**
 * The AES key sealing endpoint secrets: `WEBHOOK_SECRET_KEY` when set; otherwise (embedded default) a
 * random 32-byte key generated once into `<dataDir>/webhook-secret.key` (hex, mode 0600) and reused on
 * every start. Losing that file makes existing secrets unreadable (deliveries then fail until the
 * endpoints are re-created), so back it up with the data directory, or set the variable.
 */
export function loadOrCreateSecretKey(config: WebhooksConfig): Buffer {
  if (config.secretKey) return parseSecretKey(config.secretKey);
  if (!config.dataDir) throw new Error('webhooks: set WEBHOOK_SECRET_KEY or give a data directory for the generated key');
  return loadOrCreateKeyFile(path.join(config.dataDir, 'webhook-secret.key'), { parse: (text) => parseSecretKey(text) });
}

export interface WebhooksRuntimeDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  engine: WorkflowEngine;
  clock: Clock;
  /** Brings the read models (the `webhooks` projection) up to date with the log. */
  catchUp: () => Promise<void>;
  config: WebhooksConfig;
  /** The sealing key, when the caller holds it (the platform's secrets); else loaded from `config`. */
  secretKey?: Buffer;
  logger?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

export interface WebhooksRuntime {
  service: WebhookService;
  sender: WebhookSender;
  /** The process managers this capability runs, with their activities (registered by `register`). */
  processManagers: readonly RegisteredProcessManager[];
  /** Registers the delivery workflow with the engine (call before `engine.run()`). */
  register(): void;
  /** Starts the fan-out (after the engine runs). */
  start(): Promise<void>;
  /** Resolves once every catalog event in the log has been fanned out into workflows. */
  fanoutCaughtUp(): Promise<void>;
  /** Stops the fan-out and closes the HTTP agent (the engine is stopped by its owner). */
  stop(): Promise<void>;
}

/** Wires the webhooks capability: service (routes), delivery workflow + activities, fan-out. */
export function createWebhooksRuntime(deps: WebhooksRuntimeDeps): WebhooksRuntime {
  const cfg = deps.config;
  const secrets = createSecretBox(deps.secretKey ?? loadOrCreateSecretKey(cfg));
  const sender = createWebhookSender({ allowCidrs: cfg.allowCidrs, caCertsPath: cfg.caCertsPath, timeoutMs: cfg.timeoutMs });
  const service = createWebhookService({
    eventStore: deps.eventStore,
    readModels: deps.readModels,
    sender,
    secrets,
    clock: deps.clock,
    catchUp: deps.catchUp,
  });
  let fanout: WebhookFanout | null = null;
  let registered = false;
  const processManagers: RegisteredProcessManager[] = [
    bindProcessManager(webhookDeliveryProcess, createWebhookActivities({ eventStore: deps.eventStore, sender, secrets, clock: deps.clock, logger: deps.logger })),
  ];
  return {
    service,
    sender,
    processManagers,
    register() {
      if (registered) return;
      registered = true;
      for (const pm of processManagers) pm.register(deps.engine);
    },
    async start() {
      this.register();
      fanout ??= await startWebhookFanout({
        eventStore: deps.eventStore,
        readModels: deps.readModels,
        engine: deps.engine,
        clock: deps.clock,
        perEndpointConcurrency: cfg.perEndpointConcurrency ?? 4,
        logger: deps.logger,
      });
    },
    async fanoutCaughtUp() {
      await fanout?.caughtUp();
    },
    async stop() {
      await fanout?.stop();
      fanout = null;
      await sender.close();
    },
  };
}
