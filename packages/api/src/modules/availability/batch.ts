// Many requests' lookups read by one statement (docs/performance.md#a-hit-at-the-cost-of-readyz).

/**
 * Gathers the items of one turn of the event loop into one batch, read by one call of `run`,
 * which answers one result per item (undefined for an item it found nothing for) in the batch's
 * order.
 *
 * A batch is sent at the end of its turn (`setImmediate`), after every one of its items arrived,
 * so a statement's snapshot is taken after each of its requests was received: each sees every
 * write that committed before it arrived, as one statement per request would (contract §6: a
 * read after a write's response sees it, on any process). An item never joins a batch already
 * sent: one that arrives while a batch is under way goes in the next, sent at the end of its own
 * turn. (Holding the next batch until the one under way has answered, for larger batches, was
 * measured twice and gained nothing: docs/performance.md.)
 */
export class StatementBatcher<Item, Result> {
  private pending: { item: Item; resolve: (result: Result | undefined) => void; reject: (error: unknown) => void }[] =
    [];
  private scheduled = false;

  constructor(private readonly run: (items: readonly Item[]) => Promise<readonly (Result | undefined)[]>) {}

  /** The item's result, from a batch sent after it arrived. */
  lookup(item: Item): Promise<Result | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.send();
        });
      }
    });
  }

  private send(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    if (batch.length === 0) return;
    const items = batch.map((entry) => entry.item);
    // A runner that throws before it sends fails its batch like one whose statement failed.
    void (async () => this.run(items))().then(
      (results) => {
        batch.forEach((entry, k) => {
          entry.resolve(results[k]);
        });
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  }
}
