import { randomBytes } from 'node:crypto';
import { Admin } from '@platformatic/kafka';
import { serverMissing } from './servers.ts';

/** The Kafka brokers tests use (`host:port`, comma-separated): `KAFKA_BROKERS`, else the one `npm run engines -- up` starts. */
export function testKafkaBrokers(): string {
  return process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
}

/** {@link testKafkaBrokers} as a list. */
export function testKafkaBrokerList(): string[] {
  return testKafkaBrokers()
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}

/**
 * True when the test broker answers a metadata request (lists its topics) within 5 s; otherwise skips the
 * caller's tests with the reason, or throws where servers are required (`SELLO_REQUIRE_SERVERS=1`,
 * {@link serverMissing}).
 */
export async function kafkaReachable(what: string): Promise<boolean> {
  const admin = new Admin({ clientId: 'sello-test-probe', bootstrapBrokers: testKafkaBrokerList(), connectTimeout: 2000, retries: 0 });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      admin.listTopics(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
      }),
    ]);
    return true;
  } catch (error) {
    return serverMissing(what, `no Kafka broker answering at ${testKafkaBrokers()} (${(error as Error).message})`);
  } finally {
    clearTimeout(timer);
    await admin.close().catch(() => undefined);
  }
}

/** A job-queue prefix (`JOB_QUEUE_PREFIX`) no other test uses: its topics, group and claims are this test's own. */
export function uniqueQueuePrefix(label = 'sello-t'): string {
  return `${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Deletes the topics and consumer groups whose names start with `prefix.` (a test's own, see
 * {@link uniqueQueuePrefix}), so test runs leave nothing on the shared broker. Never throws.
 */
export async function deleteKafkaPrefix(prefix: string): Promise<void> {
  const admin = new Admin({ clientId: 'sello-test-cleanup', bootstrapBrokers: testKafkaBrokerList(), retries: 1 });
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    const groups = [...(await admin.listGroups()).keys()].filter((g) => g.startsWith(`${prefix}.`));
    if (groups.length > 0) await admin.deleteGroups({ groups }).catch(() => undefined);
  } catch {
    // best effort: a leftover topic costs a few bytes, not a failure
  } finally {
    await admin.close().catch(() => undefined);
  }
}
