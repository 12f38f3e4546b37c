import { isConnectionError } from "./errors.ts";

/**
 * Whether the database is reachable, as the last queries found it (docs/operations.md#database-outage).
 * A connection error opens the breaker: from then on requests are answered 503 at once instead of
 * queueing for a pool that cannot connect, and a probe pings the database every `probeEveryMs`
 * until it answers, which closes the breaker again.
 */
export class DatabaseHealth {
  private down = false;
  private closed = false;

  constructor(
    private readonly ping: () => Promise<void>,
    private readonly probeEveryMs = 200,
  ) {}

  /** True while the database is known to be unreachable. */
  get isDown(): boolean {
    return this.down;
  }

  /** Reports a failed database call; only a connection error opens the breaker. */
  report(error: unknown): void {
    if (this.down || this.closed || !isConnectionError(error)) return;
    this.down = true;
    void this.probe();
  }

  /** Stops probing (the handle is closing). */
  close(): void {
    this.closed = true;
  }

  private async probe(): Promise<void> {
    while (this.down && !this.closed) {
      await new Promise((resolve) => setTimeout(resolve, this.probeEveryMs).unref());
      try {
        await this.ping();
        this.down = false;
      } catch {
        // still away
      }
    }
  }
}
