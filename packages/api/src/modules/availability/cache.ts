import type { Slot } from "../../domain/slots.ts";
import type { ServiceInfo } from "./service.ts";

/** One computed answer. */
export interface CachedAvailability {
  service: ServiceInfo;
  slots: Slot[];
  /** The scopes whose versions it was computed under: the clinic's and its candidate providers'. */
  dependsOn: readonly string[];
  /**
   * Each slot as the JSON of the answer, in two parts (up to its id list; the id list, shared by a
   * run of slots with the same providers), made at the first fast read (docs/performance.md#availability).
   */
  fragments?: Buffer[];
  /** The ETags of the last cuts of the answer the fast path served, by cut (`from.to`). */
  tags?: Map<string, string>;
  /**
   * When the first hold it counted as taken ends (epoch ms; Infinity without holds): from then on
   * the answer is stale although no version changed, since an expired hold occupies nothing (§13).
   */
  goodUntilMs: number;
}

/**
 * The heap an answer occupies, estimated: a slot is an object with two numbers, a short string
 * and an array of references to provider ids (the id strings themselves are shared), and its JSON
 * fragment once the fast path has made it (about 110 bytes and 40 per provider id, counted from
 * the start so that the budget holds either way).
 */
export function estimateBytes(value: CachedAvailability): number {
  let bytes = 512;
  for (const slot of value.slots) bytes += 160 + 8 * slot.providerIds.length + 2 * (110 + 40 * slot.providerIds.length);
  return bytes;
}

export interface AvailabilityCacheLimits {
  /** Total estimated size of the entries (default 64 MiB). */
  maxBytes?: number;
  /** Number of entries (default 5,000). */
  maxEntries?: number;
}

interface Entry {
  versionKey: string;
  value: CachedAvailability;
  bytes: number;
}

/**
 * A bounded in-process cache of computed availability, bounded by entries and by bytes (least
 * recently used first out). Each entry remembers the availability versions it was computed under;
 * a reader first reads the current versions (one query) and uses the entry only when they match,
 * so the cache needs no TTL and stays coherent across processes.
 */
export class AvailabilityCache {
  private readonly entries = new Map<string, Entry>();
  /** The last time zone each clinic's answers were computed in (the fast path's guess, checked by its read). */
  private readonly zones = new Map<string, string>();
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private totalBytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(limits: AvailabilityCacheLimits = {}) {
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
    this.maxEntries = limits.maxEntries ?? 5_000;
  }

  /** The cached value when it was stored under exactly `versionKey` and no hold it counted has ended by `nowMs`. */
  get(key: string, versionKey: string, nowMs: number): CachedAvailability | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key, entry);
    if (entry.versionKey !== versionKey || entry.value.goodUntilMs <= nowMs) return undefined;
    // Re-insert to keep the map in least-recently-used order.
    this.entries.set(key, entry);
    this.totalBytes += entry.bytes;
    return entry.value;
  }

  /** Counts one request's lookup: answered from the cache, or not (absent or stale). */
  noteLookup(hit: boolean): void {
    if (hit) this.hits++;
    else this.misses++;
  }

  /** Lookups so far, and what the cache holds. */
  stats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.totalBytes };
  }

  /** The stored value whatever its versions (to learn what it depends on before validating it). */
  peek(key: string): CachedAvailability | undefined {
    return this.entries.get(key)?.value;
  }

  /** The time zone the clinic's last computed answer used, if any. */
  zoneOf(clinicId: string): string | undefined {
    return this.zones.get(clinicId);
  }

  /** Remembers the clinic's time zone (bounded: forgotten all at once past 100,000 clinics). */
  noteZone(clinicId: string, timeZone: string): void {
    if (this.zones.size >= 100_000) this.zones.clear();
    this.zones.set(clinicId, timeZone);
  }

  /** Stores an answer; one larger than the whole budget is not kept. */
  set(key: string, versionKey: string, value: CachedAvailability): void {
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    const bytes = estimateBytes(value);
    if (bytes > this.maxBytes) return;
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.totalBytes + bytes > this.maxBytes)) {
      const oldest = this.entries.entries().next();
      if (oldest.done) break;
      this.remove(oldest.value[0], oldest.value[1]);
    }
    this.entries.set(key, { versionKey, value, bytes });
    this.totalBytes += bytes;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimated size of every entry together. */
  get bytes(): number {
    return this.totalBytes;
  }
}
