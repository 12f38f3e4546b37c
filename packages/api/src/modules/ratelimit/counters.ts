import { lt, sql } from "drizzle-orm";
import { type Db, rateLimitCounters, rowsOf } from "@clinic/db";
import { DomainError } from "../../errors.ts";

/** A limit of `max` hits per `windowMs`, counted per key across every server process. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/**
 * Counts one hit of `key` in the current fixed window, in the database shared by every process
 * (a per-process counter would multiply the limit by the process count), and refuses it with 429
 * RATE_LIMITED (`retry_after_s` in the body; the Retry-After header) when the window is full.
 * One atomic upsert per hit; windows older than a day are pruned now and then.
 */
export async function hitRateLimit(db: Db, key: string, limit: RateLimit, now: Date): Promise<void> {
  const windowStart = new Date(Math.floor(now.getTime() / limit.windowMs) * limit.windowMs);
  const rows = rowsOf<{ hits: number }>(
    await db.execute(sql`
      insert into ${rateLimitCounters} (key, window_start, hits) values (${key}, ${windowStart.toISOString()}::timestamptz, 1)
      on conflict (key, window_start) do update set hits = ${rateLimitCounters}.hits + 1
      returning hits`),
  );
  const hits = rows[0]?.hits ?? 0;
  // Rarely, and only from the first hit of a window: old windows are of no use to anyone.
  if (hits === 1 && Math.random() < 0.01) await db.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, new Date(now.getTime() - 86_400_000)));
  if (hits > limit.max) {
    const retryAfterS = Math.max(1, Math.ceil((windowStart.getTime() + limit.windowMs - now.getTime()) / 1000));
    throw new DomainError("RATE_LIMITED", `too many booking requests: at most ${String(limit.max)} a minute; retry in ${String(retryAfterS)} s`, {
      extra: { retry_after_s: retryAfterS },
    });
  }
}
