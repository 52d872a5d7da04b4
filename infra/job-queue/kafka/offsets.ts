/**
 * Which offsets a worker process may commit, when it runs several jobs of one partition at once and they
 * finish in any order.
 *
 * The rule that makes a SIGKILL lose nothing: an offset is committed only when the job at that offset and
 * every job this process took before it on that partition have been answered (their reply produced). Jobs
 * are tracked in the order the consumer delivered them (increasing offsets per partition); offsets never
 * delivered (gaps, or jobs another member ran while it owned the partition) are not waited for.
 */
export class PartitionProgress {
  /** Offsets taken and not yet answered or done, in delivery order, with their state. */
  private readonly queue: Array<{ offset: bigint; done: boolean }> = [];
  private readonly taken = new Set<bigint>();
  /** Highest offset such that it and everything taken before it is done; -1n before any. */
  private watermark = -1n;

  /**
   * Takes the message at `offset` unless it was already taken (a consumer re-delivers uncommitted messages
   * after a rebalance, to this process too).
   * @returns false when the offset is a re-delivery: do not run it again.
   */
  take(offset: bigint): boolean {
    if (offset <= this.watermark || this.taken.has(offset)) return false;
    // A re-delivery below the head of the queue after a rebalance can only be of offsets this process
    // already handled or never saw; the ones it never saw belong to a range another member ran and committed.
    const last = this.queue.at(-1);
    if (last && offset < last.offset) return false;
    this.queue.push({ offset, done: false });
    this.taken.add(offset);
    return true;
  }

  /**
   * Marks `offset` answered (or dropped: a job past its deadline, a dead letter).
   * @returns the new commit watermark (the highest offset done with all before it), or null when it did not move.
   */
  finish(offset: bigint): bigint | null {
    const entry = this.queue.find((e) => e.offset === offset);
    if (!entry) return null;
    entry.done = true;
    let moved = false;
    while (this.queue.length > 0 && this.queue[0]!.done) {
      const head = this.queue.shift()!;
      this.taken.delete(head.offset);
      this.watermark = head.offset;
      moved = true;
    }
    return moved ? this.watermark : null;
  }

  /** Jobs taken and not yet finished. */
  get running(): number {
    return this.queue.filter((e) => !e.done).length;
  }

  /** The highest offset done with all before it (-1n: none yet). */
  get done(): bigint {
    return this.watermark;
  }
}

/**
 * The offset value to commit for a partition whose jobs up to `lastDone` are answered.
 *
 * Kafka's convention is the NEXT offset to read (`lastDone + 1`), and @platformatic/kafka 1.24.0 follows
 * it (platformatic/kafka#196). 1.22.0, the version installed (the newest whose whole dependency tree
 * declares Node 20), commits a message's own offset and resumes a partition at `committed + 1`: this
 * process commits in the convention the library resumes from, or a restarted group would skip one job per
 * partition. After an upgrade to >= 1.24 this must become `lastDone + 1n` (test/contract/job-queue.kafka.test.ts,
 * "resumes exactly after the last answered job", fails until it does: the last answered job would run twice).
 */
export function commitValue(lastDone: bigint): bigint {
  return lastDone;
}

/** Where the group resumes a partition from a committed value read back from the broker (-1n: none committed). */
export function resumeOffset(committed: bigint): bigint | null {
  return committed < 0n ? null : committed + 1n;
}
