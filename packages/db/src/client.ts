import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** A database or a transaction: data-access functions take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface DbHandle {
  db: Db;
  kind: "pglite" | "postgres";
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** PostgreSQL connection string; when absent an embedded PGlite database is used. */
  url?: string | undefined;
  /** PGlite data directory; absent = in memory. */
  pgliteDir?: string | undefined;
  /** A PGlite data-directory dump to start from (tests use a migrated template). */
  pgliteLoad?: Blob | undefined;
  /** postgres.js pool size. */
  poolMax?: number | undefined;
}

const pgliteExtensions = { btree_gist, pg_trgm, unaccent };

/** Opens the configured database: a postgres.js pool for a URL, embedded PGlite otherwise. */
export async function openDatabase(options: DbOptions): Promise<DbHandle> {
  if (options.url) {
    const client = postgres(options.url, {
      max: options.poolMax ?? 10,
      onnotice: () => undefined,
      connect_timeout: 5,
      idle_timeout: 30,
    });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    return {
      db,
      kind: "postgres",
      ping: async () => {
        await db.execute(sql`select 1`);
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  if (options.pgliteDir) await mkdir(options.pgliteDir, { recursive: true });
  const client = await PGlite.create({
    ...(options.pgliteDir ? { dataDir: options.pgliteDir } : {}),
    ...(options.pgliteLoad ? { loadDataDir: options.pgliteLoad } : {}),
    extensions: pgliteExtensions,
  });
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
  };
}

/**
 * Rows of a raw `db.execute()` result: postgres.js returns an array, PGlite an object with
 * `rows`. Use the query builder where possible; this is for the few raw statements.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  if (typeof result === "object" && result !== null && "rows" in result && Array.isArray(result.rows)) {
    return result.rows as T[];
  }
  return [];
}
