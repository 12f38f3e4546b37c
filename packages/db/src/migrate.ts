import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "./client.ts";
import { rowsOf } from "./client.ts";
import { distributeFunctions, distributeTables } from "./citus.ts";

/**
 * The committed SQL migrations at the repository root (`drizzle/`): the nearest `drizzle/` folder
 * with a journal above this module, which is `packages/db/src/` in the workspace and
 * `apps/server/dist/` in the compiled server.
 */
export const migrationsFolder = findMigrations(new URL("./", import.meta.url));

function findMigrations(from: URL): string {
  for (let dir = from, depth = 0; depth < 8; dir = new URL("../", dir), depth++) {
    const candidate = new URL("drizzle/", dir);
    if (existsSync(new URL("meta/_journal.json", candidate))) return fileURLToPath(candidate);
  }
  throw new Error(`no drizzle/meta/_journal.json above ${fileURLToPath(from)}`);
}

/** Arbitrary but fixed: every process that migrates takes this advisory lock first. */
const MIGRATION_LOCK_KEY = 724_310_051;

const journalSchema = z.object({
  entries: z.array(z.object({ idx: z.number(), tag: z.string() })),
});

/**
 * Applies the pending drizzle-kit migrations in one transaction, under a transaction-scoped
 * advisory lock so that several server processes starting together apply each migration once.
 * Then, on a database with the Citus extension, distributes the tables that are not yet
 * distributed. `through` stops after that migration (tests of upgrades). Returns the tags that
 * were applied by this call.
 */
export async function migrate(
  db: Db,
  options: {
    folder?: string;
    through?: string;
    onApply?: (tag: string) => void;
    onDistribute?: (tables: string[]) => void;
  } = {},
): Promise<string[]> {
  const folder = options.folder ?? migrationsFolder;
  const journal = journalSchema.parse(JSON.parse(await readFile(`${folder}meta/_journal.json`, "utf8")));
  const sorted = [...journal.entries].sort((a, b) => a.idx - b.idx);
  const last = options.through === undefined ? sorted.length : sorted.findIndex((e) => e.tag === options.through) + 1;
  if (last === 0) throw new Error(`no migration ${options.through ?? ""}`);
  const entries = sorted.slice(0, last);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.execute(sql`create table if not exists schema_migrations (
      tag text primary key,
      applied_at timestamptz(3) not null default now()
    )`);
    const done = new Set(
      rowsOf<{ tag: string }>(await tx.execute(sql`select tag from schema_migrations`)).map((r) => r.tag),
    );
    const applied: string[] = [];
    for (const entry of entries) {
      if (done.has(entry.tag)) continue;
      const text = await readFile(`${folder}${entry.tag}.sql`, "utf8");
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into schema_migrations (tag) values (${entry.tag})`);
      options.onApply?.(entry.tag);
      applied.push(entry.tag);
    }
    // On Citus, the schema is then distributed by clinic (docs/scale-out.md); a no-op elsewhere.
    // A partial migration (`through`, for upgrade tests) leaves that to the full one.
    if (options.through === undefined) {
      const distributed = [...(await distributeTables(tx)), ...(await distributeFunctions(tx))];
      if (distributed.length > 0) options.onDistribute?.(distributed);
    }
    return applied;
  });
}
