import type { Logger } from 'pino';
import type { EventStore } from '../../infra/ports/event-store.ts';
import { usageStream, type ApiCallRecorded } from '../../domain/usage/usage.ts';

/**
 * Appends `ApiCallRecorded` events off the request path, in batches: calls are buffered and flushed
 * every `flushMs` (or at `maxBatch`), one append per tenant stream, so the log takes one write per batch
 * instead of one per call. `close()` flushes what is left; a crash loses at most `flushMs` of usage.
 */
export class UsageRecorder {
  private buffer: ApiCallRecorded['data'][] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly log: Logger,
    private readonly flushMs = 20,
    private readonly maxBatch = 500,
  ) {}

  record(call: ApiCallRecorded['data']): void {
    this.buffer.push(call);
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Appends everything buffered so far; resolves when it is in the log. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(async () => {
      const byStream = new Map<string, ApiCallRecorded['data'][]>();
      for (const call of batch) {
        const stream = usageStream(call.tenant_id);
        const list = byStream.get(stream) ?? [];
        list.push(call);
        byStream.set(stream, list);
      }
      for (const [stream, calls] of byStream) {
        try {
          await this.store.append(
            stream,
            calls.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: data.tenant_id, request_id: data.request_id } })),
          );
        } catch (err) {
          this.log.error({ err, stream, calls: calls.length }, 'could not record usage events');
        }
      }
    });
    return this.flushing;
  }
}
