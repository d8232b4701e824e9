// A world's state stream as an async iterator of snapshots.
import type { Snapshot } from "./gen/linkage/v1/snapshot_pb.js";

/**
 * The snapshots of one StreamState call, in order:
 *
 *     const stream = client.stream("lab", { rateHz: 30, diagnostics: true });
 *     for await (const s of stream) if (s.tick > 600n) break;   // break closes it
 *
 * Iterating raises LinkageError when the server ends the stream
 * (UNAVAILABLE on shutdown or when the world is deleted, NOT_FOUND for a
 * world that does not exist) and ends quietly once closed. It can be
 * iterated once.
 */
export class StateStream implements AsyncIterable<Snapshot> {
  private started = false;

  constructor(
    private readonly open: (signal: AbortSignal) => AsyncIterable<Snapshot>,
    private readonly abort: AbortController,
  ) {}

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  /** Ends the stream (cancels the call); idempotent. */
  close(): void {
    this.abort.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Snapshot> {
    if (this.started) throw new TypeError("a StateStream can be iterated once; open another with client.stream()");
    this.started = true;
    const signal = this.abort.signal;
    try {
      for await (const s of this.open(signal)) {
        // Snapshots already received when close() was called are dropped.
        if (signal.aborted) return;
        yield s;
      }
    } catch (err) {
      // The cancellation close() caused is the end of the stream, not an error.
      if (signal.aborted) return;
      throw err;
    } finally {
      this.abort.abort();
    }
  }
}
