import { lt, sql } from "drizzle-orm";
import { type Db, rowsOf, signInCounters } from "@clinic/db";
import { DomainError } from "../../errors.ts";
import { type RateLimit, rateWindow } from "../ratelimit/index.ts";

/**
 * Counts one hit of a sign-in limit in its fixed window, in the database shared by every process
 * (one atomic upsert, as the booking limits do per clinic), and refuses it with 429 RATE_LIMITED
 * when the window is full. The key names no address: it is a keyed hash.
 */
export async function hitSignInLimit(db: Db, limit: RateLimit, now: Date, what: string): Promise<void> {
  const window = rateWindow(limit, now);
  const rows = rowsOf<{ hits: number }>(
    await db.execute(sql`
      insert into ${signInCounters} as c (key, window_start, hits) values (${limit.key}, ${window.window_start}::timestamptz, 1)
      on conflict (key, window_start) do update set hits = c.hits + 1
      returning hits`),
  );
  const hits = rows[0]?.hits ?? 0;
  // Now and then, from a window's first hit: windows that ended a day ago count nothing any more.
  if (hits === 1 && Math.random() < 0.01) await pruneSignInCounters(db, now);
  if (hits > limit.max)
    throw new DomainError("RATE_LIMITED", `${what}; retry in ${String(window.retry_after_s)} s`, {
      extra: { retry_after_s: window.retry_after_s },
    });
}

/** Deletes the counters of windows that began more than a day before `now`. */
export async function pruneSignInCounters(db: Db, now: Date): Promise<void> {
  await db.delete(signInCounters).where(lt(signInCounters.windowStart, new Date(now.getTime() - 86_400_000)));
}
