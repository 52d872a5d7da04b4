/**
 * What the Kafka queue's producer and consumer sides share: client options, topic creation, bounded waits.
 * The client is @platformatic/kafka 1.22.0 (the choice and its evidence: docs/operations.md, "Kafka client").
 */
import { Admin, Consumer } from '@platformatic/kafka';

/** The log calls the adapter makes (pino's shape); nothing secret is ever passed to them. */
export interface QueueLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A log that drops everything (no logger given). */
export const silentLog: QueueLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Retries of a failed request by the consumers, which must outlive a broker restart: @platformatic/kafka
 * 1.22.0 ends a consumer's stream once a request has failed `retries + 1` times (default 3, one second
 * apart: measured, a 20 s broker restart left the default consumer consuming nothing, docs/operations.md),
 * so they retry for as long as it takes. Never for a producer: a send to a topic that does not exist would
 * never return.
 */
export const RETRY_FOREVER = Number.MAX_SAFE_INTEGER;

/**
 * Creates the topics that do not exist yet (`partitions` each, the broker's default replication factor),
 * tolerating another process creating them at the same time.
 * @throws Error when the broker refuses for another reason or cannot be reached.
 */
export async function ensureTopics(admin: Admin, topics: ReadonlyArray<{ name: string; partitions: number; configs?: Record<string, string> }>): Promise<void> {
  const existing = new Set(await admin.listTopics());
  for (const t of topics) {
    if (existing.has(t.name)) continue;
    try {
      await admin.createTopics({
        topics: [t.name],
        partitions: t.partitions,
        replicas: -1,
        ...(t.configs ? { configs: Object.entries(t.configs).map(([name, value]) => ({ name, value })) } : {}),
      });
    } catch (error) {
      if (!isProtocolError(error, 'TOPIC_ALREADY_EXISTS')) throw error;
    }
  }
}

/** True when `error` (a client error, possibly aggregating several) carries the broker error `apiId`. */
export function isProtocolError(error: unknown, apiId: string): boolean {
  const e = error as { apiId?: string; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.apiId === apiId) return true;
  return Array.isArray(e.errors) && e.errors.some((x) => isProtocolError(x, apiId));
}

/** The first line of an error's message, with its nested causes' messages (client errors aggregate them). */
export function describeError(error: unknown): string {
  const e = error as { message?: string; errors?: unknown[] } | null;
  const own = typeof e?.message === 'string' ? e.message : String(error);
  const nested = Array.isArray(e?.errors) ? e.errors.map((x) => (x as Error)?.message).filter(Boolean) : [];
  return nested.length > 0 ? `${own} (${[...new Set(nested)].slice(0, 3).join('; ')})` : own;
}

/** Closes a consumer, leaving its group even while a stream is open (the promise form of `close(true, callback)`). */
export function closeConsumer(consumer: Consumer): Promise<void> {
  return new Promise<void>((resolve, reject) => consumer.close(true, (error) => (error ? reject(error) : resolve())));
}
