/**
 * A bounded in-process cache of computed availability. Each entry remembers the availability
 * versions it was computed under; a reader first reads the current versions (one query) and uses
 * the entry only when they match, so the cache needs no TTL and stays coherent across processes.
 */
export class AvailabilityCache {
  private readonly entries = new Map<string, { versionKey: string; value: unknown }>();

  constructor(private readonly maxEntries = 5_000) {}

  /** The cached value when it was stored under exactly `versionKey`. */
  get(key: string, versionKey: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.versionKey !== versionKey) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert to keep the map in least-recently-used order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The stored value whatever its versions (to learn what it depends on before validating it). */
  peek(key: string): unknown {
    return this.entries.get(key)?.value;
  }

  set(key: string, versionKey: string, value: unknown): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { versionKey, value });
  }

  get size(): number {
    return this.entries.size;
  }
}
