import { and, eq, lt, sql } from "drizzle-orm";
import { type Db, rateLimitCounters, rowsOf } from "@clinic/db";
import { DomainError } from "../../errors.ts";

/** A limit of `max` hits of `key` per `windowMs`, counted per clinic across every server process. */
export interface RateLimit {
  key: string;
  max: number;
  windowMs: number;
}

/** The fixed window of `limit` that `now` falls in, as the database functions take it. */
export function rateWindow(
  limit: RateLimit,
  now: Date,
): { key: string; max: number; window_start: string; retry_after_s: number } {
  const windowStart = Math.floor(now.getTime() / limit.windowMs) * limit.windowMs;
  const retryAfterS = Math.max(1, Math.ceil((windowStart + limit.windowMs - now.getTime()) / 1000));
  return {
    key: limit.key,
    max: limit.max,
    window_start: new Date(windowStart).toISOString(),
    retry_after_s: retryAfterS,
  };
}

/** 429 RATE_LIMITED (`retry_after_s` in the body; the Retry-After header) for a full window. */
export function rateLimited(limit: RateLimit, now: Date): DomainError {
  const { retry_after_s } = rateWindow(limit, now);
  return new DomainError(
    "RATE_LIMITED",
    `too many booking requests: at most ${String(limit.max)} a minute; retry in ${String(retry_after_s)} s`,
    {
      extra: { retry_after_s },
    },
  );
}

/**
 * Counts one hit of the limit's key in the current fixed window, in the database shared by every
 * process (a per-process counter would multiply the limit by the process count), on the clinic's
 * shard, and refuses it with 429 RATE_LIMITED when the window is full. One atomic upsert per hit;
 * the clinic's windows older than a day are pruned now and then. The booking read counts its hit
 * in its own statement, the same way (clinic_schedule_context, drizzle/0008_hot_paths.sql).
 */
export async function hitRateLimit(db: Db, clinicId: string, limit: RateLimit, now: Date): Promise<void> {
  const window = rateWindow(limit, now);
  const rows = rowsOf<{ hits: number }>(
    await db.execute(sql`
      insert into ${rateLimitCounters} as c (clinic_id, key, window_start, hits) values (${clinicId}::uuid, ${limit.key}, ${window.window_start}::timestamptz, 1)
      on conflict (clinic_id, key, window_start) do update set hits = c.hits + 1
      returning hits`),
  );
  const hits = rows[0]?.hits ?? 0;
  // Rarely, and only from the first hit of a window: old windows are of no use to anyone.
  if (hits === 1 && Math.random() < 0.01) {
    await db
      .delete(rateLimitCounters)
      .where(
        and(
          eq(rateLimitCounters.clinicId, clinicId),
          lt(rateLimitCounters.windowStart, new Date(now.getTime() - 86_400_000)),
        ),
      );
  }
  if (hits > limit.max) throw rateLimited(limit, now);
}
