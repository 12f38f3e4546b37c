import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "./client.ts";
import { rowsOf } from "./client.ts";
import { distributeFunctions, distributeTables, hasCitus } from "./citus.ts";

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

/**
 * The database functions, one file each (`drizzle/functions/<name>.sql`): the current text of
 * function `<name>` with its options, applied after the versioned migrations whenever the file's
 * content changed (docs/database-functions.md).
 */
export const functionsFolder = `${migrationsFolder}functions/`;

/** A function's file: its name (the file's, without `.sql`), its text and that text's checksum. */
export interface FunctionFile {
  name: string;
  text: string;
  checksum: string;
}

/** Every function file of `folder`, by name; none when the folder does not exist. */
export async function functionFiles(folder = functionsFolder): Promise<FunctionFile[]> {
  if (!existsSync(folder)) return [];
  const names = (await readdir(folder)).filter((f) => f.endsWith(".sql")).sort();
  return Promise.all(
    names.map(async (file) => {
      const text = await readFile(`${folder}${file}`, "utf8");
      return { name: file.slice(0, -".sql".length), text, checksum: createHash("sha256").update(text).digest("hex") };
    }),
  );
}

/** The statements of a migration or function file (drizzle-kit's breakpoints separate them). */
export const statementsOf = (text: string): string[] =>
  text.split("--> statement-breakpoint").filter((statement) => statement.trim() !== "");

/**
 * Applies the function files whose text changed since they were last applied (a checksum per
 * function in `schema_functions`, as Flyway's repeatable migrations), in the migration's
 * transaction. Bodies are not checked at creation (`check_function_bodies = off`), so a function
 * may name one whose file comes later; the test suite calls every one of them. Returns the names
 * it applied.
 */
async function applyFunctions(tx: Db, folder: string): Promise<string[]> {
  await tx.execute(sql`create table if not exists schema_functions (
    name text primary key,
    checksum text not null,
    applied_at timestamptz(3) not null default now()
  )`);
  const applied = new Map(
    rowsOf<{ name: string; checksum: string }>(await tx.execute(sql`select name, checksum from schema_functions`)).map(
      (r) => [r.name, r.checksum],
    ),
  );
  const changed = (await functionFiles(folder)).filter((f) => applied.get(f.name) !== f.checksum);
  if (changed.length === 0) return [];
  await tx.execute(sql`set local check_function_bodies = off`);
  for (const file of changed) {
    for (const statement of statementsOf(file.text)) await tx.execute(sql.raw(statement));
    await tx.execute(sql`insert into schema_functions (name, checksum) values (${file.name}, ${file.checksum})
      on conflict (name) do update set checksum = excluded.checksum, applied_at = now()`);
  }
  return changed.map((f) => f.name);
}

/** Arbitrary but fixed: every process that migrates takes this advisory lock first. */
const MIGRATION_LOCK_KEY = 724_310_051;

const journalSchema = z.object({
  entries: z.array(z.object({ idx: z.number(), tag: z.string() })),
});

/**
 * Applies the pending drizzle-kit migrations in one transaction, under a transaction-scoped
 * advisory lock so that several server processes starting together apply each migration once.
 * Then applies the function files that changed (`applyFunctions`) and, on a database with the
 * Citus extension, distributes the tables that are not yet distributed. `through` stops after that migration (tests of upgrades). Returns the tags that
 * were applied by this call.
 */
export async function migrate(
  db: Db,
  options: {
    folder?: string;
    through?: string;
    onApply?: (tag: string) => void;
    onDistribute?: (tables: string[]) => void;
    /** Where the function files are (default: `functions/` in the migrations' folder). */
    functionsFolder?: string;
    onFunctions?: (names: string[]) => void;
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
    // On Citus, a migration that alters a distributed table (a parallel command over its shards) and
    // a function file applied after it in this transaction would fail: Citus propagates a function
    // only over one connection per node ("cannot run function command because there was a parallel
    // operation on a distributed table in the transaction"). Found upgrading a distributed database
    // through 0028 and 0029 (ALTER TABLE) with changed function files.
    if (await hasCitus(tx)) await tx.execute(sql`set local citus.multi_shard_modify_mode to 'sequential'`);
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
      for (const statement of statementsOf(text)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (tag) values (${entry.tag})`);
      options.onApply?.(entry.tag);
      applied.push(entry.tag);
    }
    // Then the functions whose files changed, and on Citus the schema is distributed by clinic
    // (docs/scale-out.md; a no-op elsewhere). A partial migration (`through`, for upgrade tests)
    // leaves both to the full one.
    if (options.through === undefined) {
      const functions = await applyFunctions(tx, options.functionsFolder ?? `${folder}functions/`);
      if (functions.length > 0) options.onFunctions?.(functions);
      const distributed = [...(await distributeTables(tx)), ...(await distributeFunctions(tx))];
      if (distributed.length > 0) options.onDistribute?.(distributed);
    }
    return applied;
  });
}
