import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import { serviceGroup, type ApiCallRecorded } from '../../domain/usage/usage.ts';
import type { Projection } from '../projection.ts';

/** One row per API call, the shape of the spec's usage "Stats record" plus tenant and credits. */
export interface UsageRecord extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  user_id: string | null;
  key_id: string | null;
  endpoint: string;
  service: string;
  method: string;
  status_code: number;
  response_time: number;
  created_at: string;
  request_size: number;
  response_size: number;
  ip_address: string;
  user_agent: string | null;
  credits_charged: number;
  request_id: string;
}

export const USAGE_COLLECTION = 'usage_events';

export const usageEventsCollection = (store: ReadModelStore): Promise<Collection<UsageRecord>> =>
  store.collection<UsageRecord>(USAGE_COLLECTION, { indexes: [['tenant_id', 'created_at']] });

/**
 * Projects `ApiCallRecorded` into `usage_events`. Rows are keyed by the event's zero-padded global
 * position: stable across replays (idempotent) and increasing, so inserts append to the key index
 * instead of landing at random places as UUID keys would.
 */
export const usageEventsProjection: Projection = {
  name: 'usage-events',
  collections: [USAGE_COLLECTION],
  eventTypes: ['ApiCallRecorded'],
  batchSize: 2000,
  async apply(events: readonly RecordedEvent[], { store }) {
    const c = await usageEventsCollection(store);
    const rows: Array<readonly [string, UsageRecord]> = [];
    for (const e of events) {
      const d = (e as unknown as ApiCallRecorded & RecordedEvent).data;
      rows.push([String(e.globalPosition).padStart(16, '0'), {
        id: e.eventId,
        tenant_id: d.tenant_id,
        user_id: d.tenant_id,
        key_id: d.key_id,
        endpoint: d.endpoint,
        service: serviceGroup(d.endpoint),
        method: d.method,
        status_code: d.status_code,
        response_time: d.response_time,
        created_at: d.created_at,
        request_size: d.request_size,
        response_size: d.response_size,
        ip_address: d.ip_address,
        user_agent: d.user_agent,
        credits_charged: d.credits_charged,
        request_id: d.request_id,
      }]);
    }
    // One statement per batch (the read-model port's putMany): the rate at which the log can be projected.
    await c.putMany(rows);
  },
};
