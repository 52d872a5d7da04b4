import type { EventStore, RecordedEvent, Subscription } from '../infra/ports/event-store.ts';
import type { Projection, ProjectionDeps } from './projection.ts';

/**
 * Runs projections: one catch-up subscription per projection from its checkpoint; each batch is applied
 * inside one read-model transaction together with the new checkpoint, so a restart resumes exactly
 * after the last applied event and a failure re-applies the whole batch (projections are idempotent).
 */
export class ProjectionRunner {
  private readonly subscriptions: Subscription[] = [];
  private caughtUpOnce = false;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly deps: ProjectionDeps,
    private readonly onError: (projection: string, error: unknown) => void = () => undefined,
    /** Projections run elsewhere (the API's usage-writer thread): {@link catchUp} waits for them too. */
    private readonly elsewhere?: () => Promise<void>,
  ) {}

  async start(): Promise<void> {
    for (const p of this.projections) {
      const from = await this.deps.store.getCheckpoint(p.name);
      const sub = this.store.subscribeToAll({
        fromPosition: from,
        batchSize: p.batchSize ?? 500,
        // The store filters by type, so a batch holds only events this projection handles; the checkpoint
        // is the last applied event (a restart re-reads nothing but skipped event types).
        types: p.eventTypes,
        onEvents: async (events) => {
          const last = events[events.length - 1]!.globalPosition;
          try {
            await this.applyBatch(p, events, last);
          } catch (error) {
            this.onError(p.name, error);
            throw error;
          }
        },
      });
      this.subscriptions.push(sub);
    }
    void this.checkReady();
  }

  /**
   * True once every projection (read models and this process's vector-index replica) has applied the
   * whole log as it was at some moment after start: the instance may take traffic (`GET /ready`).
   * While false, each call starts another catch-up check in the background.
   */
  isReady(): boolean {
    if (!this.caughtUpOnce) void this.checkReady();
    return this.caughtUpOnce;
  }

  private checkReady(): Promise<void> {
    this.checking ??= this.catchUp()
      .then(() => {
        if (this.subscriptions.length > 0 || this.projections.length === 0) this.caughtUpOnce = true;
      })
      .catch(() => undefined)
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  private async applyBatch(p: Projection, events: readonly RecordedEvent[], lastPosition: number): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      if (events.length) await p.apply(events, { ...this.deps, store: tx });
      await tx.setCheckpoint(p.name, lastPosition);
    });
  }

  /** Resolves when every projection has applied every event appended so far. */
  async catchUp(): Promise<void> {
    await Promise.all([...this.subscriptions.map((s) => s.caughtUp()), this.elsewhere?.()]);
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  /**
   * Rebuilds every projection from the start of the log (the CLI's `replay`; run it with the server
   * stopped), then has the store forget the rebuilt collections' former row versions (`forget`: on
   * PostgreSQL a `VACUUM FULL` of each table). Returns per-projection document counts of the collections it owns.
   */
  static async replay(store: EventStore, projections: readonly Projection[], deps: ProjectionDeps): Promise<{ events: number; projections: Record<string, Record<string, number>> }> {
    for (const p of projections) {
      await p.reset?.(deps);
      await deps.store.truncate(p.collections);
      await deps.store.setCheckpoint(p.name, 0);
    }
    let position = 0;
    let total = 0;
    for (;;) {
      const batch = await store.readAll({ fromPosition: position, maxCount: 1000 });
      if (batch.length === 0) break;
      position = batch[batch.length - 1]!.globalPosition;
      total += batch.length;
      for (const p of projections) {
        const wanted = batch.filter((e) => p.eventTypes.includes(e.type));
        await deps.store.transaction(async (tx) => {
          if (wanted.length) await p.apply(wanted, { ...deps, store: tx });
          await tx.setCheckpoint(p.name, position);
        });
      }
    }
    // A replay rewrites rows it inserted (an entity's later events: an erasure clearing a usage row's user
    // agent that the log still holds under a live usage day key, a document scrubbed...): the former versions
    // stay in the store's files (PostgreSQL dead tuples, SQLite WAL) unless forgotten (issue 28 byte scan).
    await deps.store.forget(projections.flatMap((p) => p.collections));
    const counts: Record<string, Record<string, number>> = {};
    for (const p of projections) {
      counts[p.name] = {};
      for (const c of p.collections) counts[p.name]![c] = await (await deps.store.collection(c)).count();
    }
    return { events: total, projections: counts };
  }
}
