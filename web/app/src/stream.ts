// One world's StreamState, kept open: when it drops it is reopened with
// exponential backoff, after checking the world still exists.
import { Code, type Client } from "@linkage/client";
import type { Snapshot } from "@linkage/client/proto/snapshot_pb";
import { describeError, errorCode } from "./errors";

export type StreamState = "connecting" | "live" | "retrying";

export interface StreamHandlers {
  snapshot(s: Snapshot): void;
  state(state: StreamState, detail?: string): void;
  // The world is gone (deleted, or the server restarted without it).
  gone(world: string): void;
}

// Delay before reconnect attempt `n` (1, 2, …): 0.25 s doubling to 8 s,
// spread ±20% so tabs that lost the same server do not return in step.
export function backoffMs(n: number, random = Math.random): number {
  const base = Math.min(8000, 250 * 2 ** Math.max(0, n - 1));
  return base * (0.8 + 0.4 * random());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

export class WorldStream {
  private readonly abort = new AbortController();

  // `contacts`: the frames carry contact points (the viewer's contacts toggle).
  constructor(
    private readonly client: Client,
    readonly world: string,
    private readonly on: StreamHandlers,
    private readonly contacts = false,
  ) {
    void this.run();
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let attempt = 0;
    while (!signal.aborted) {
      try {
        if (attempt > 0) await this.client.world.getWorld({ world: this.world }, { signal });
        this.on.state("connecting");
        const stream = this.client.stream(this.world, { constraints: true, diagnostics: true, contacts: this.contacts, signal });
        let first = true;
        for await (const s of stream) {
          if (first) {
            this.on.state("live");
            first = false;
            attempt = 0;
          }
          this.on.snapshot(s);
        }
        if (signal.aborted) return;
        this.on.state("retrying", "the stream ended");
      } catch (err) {
        if (signal.aborted) return;
        if (errorCode(err) === Code.NotFound) {
          this.on.gone(this.world);
          return;
        }
        this.on.state("retrying", describeError(err));
      }
      attempt++;
      await sleep(backoffMs(attempt), signal);
    }
  }
}
