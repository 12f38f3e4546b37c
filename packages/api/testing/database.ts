import { afterAll, beforeAll, inject } from "vitest";
import { sql } from "drizzle-orm";
import { type Db, type DbHandle, hasCitus, rowsOf } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";

/** Opens this test file's database (PGlite template or the PostgreSQL server) for the whole file. */
export function useTestDatabase(): { readonly db: Db; readonly handle: DbHandle } {
  let handle: DbHandle | undefined;
  beforeAll(async () => {
    handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get db() {
      if (!handle) throw new Error("database not open yet");
      return handle.db;
    },
    get handle() {
      if (!handle) throw new Error("database not open yet");
      return handle;
    },
  };
}

/**
 * Waits until a statement whose text contains `fragment` waits for a lock (on Citus on any node:
 * citus_stat_activity), polling every 20 ms for at most 10 s; answers how many such statements wait.
 */
export async function lockWaiters(db: Db, fragment: string): Promise<number> {
  const activity = (await hasCitus(db)) ? sql.raw("citus_stat_activity") : sql.raw("pg_stat_activity");
  const pattern = `%${fragment}%`;
  const count = async () =>
    rowsOf<{ n: number }>(
      await db.execute(
        sql`select count(*)::int as n from ${activity} where wait_event_type = 'Lock' and query like ${pattern}`,
      ),
    )[0]?.n ?? 0;
  for (let i = 0; i < 500; i++) {
    const n = await count();
    if (n > 0) return n;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 0;
}
