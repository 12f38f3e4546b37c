import { is, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";
import { rowsOf } from "./client.ts";
import * as schema from "./schema/index.ts";

/**
 * Where a table lives on a Citus cluster (docs/scale-out.md): `users` is copied to every node, each
 * clinic's rows sit together on one node (`clinics` by id, every other table with a clinic by
 * clinic_id, all co-located), and the per-key rate-limit counters are spread by their key.
 */
export type Placement =
  | { table: string; kind: "reference" }
  | { table: string; kind: "distributed"; column: string; colocateWith: string | null };

const referenceTables = new Set(["users"]);
const ownKeyTables: Record<string, string> = { rate_limit_counters: "key" };

/**
 * The placement of one table of the schema, derived from its columns: a table that has a
 * clinic_id is a tenant table. A table that is none of these has no placement, and the schema test
 * fails until it gets one.
 */
export function placementOf(table: PgTable): Placement | undefined {
  const { name, columns } = getTableConfig(table);
  if (referenceTables.has(name)) return { table: name, kind: "reference" };
  if (name === "clinics") return { table: name, kind: "distributed", column: "id", colocateWith: null };
  const ownKey = ownKeyTables[name];
  if (ownKey) return { table: name, kind: "distributed", column: ownKey, colocateWith: null };
  if (columns.some((c) => c.name === "clinic_id")) return { table: name, kind: "distributed", column: "clinic_id", colocateWith: "clinics" };
  return undefined;
}

/** Every table of the schema (the Drizzle table objects it exports). */
export function schemaTables(): PgTable[] {
  return Object.values(schema as Record<string, unknown>).filter((value): value is PgTable => is(value, PgTable));
}

/** Placements in the order Citus needs: reference tables, then clinics, then the rest. */
export function placements(): Placement[] {
  const rank = (p: Placement) => (p.kind === "reference" ? 0 : p.table === "clinics" ? 1 : 2);
  return schemaTables()
    .map((table) => {
      const placement = placementOf(table);
      if (!placement) throw new Error(`table ${getTableConfig(table).name} has no placement on Citus (packages/db/src/citus.ts)`);
      return placement;
    })
    .sort((a, b) => rank(a) - rank(b) || a.table.localeCompare(b.table));
}

/** Whether the database has the Citus extension. */
export async function hasCitus(db: Db): Promise<boolean> {
  const [row] = rowsOf<{ citus: boolean }>(await db.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as citus`));
  return row?.citus === true;
}

/**
 * On a database with the Citus extension, distributes every table of the schema that is not yet
 * distributed (nothing happens otherwise, nor when all are). Run inside the migration transaction,
 * after the migrations; idempotent. Foreign keys that involve a table being distributed are
 * dropped first and re-created after (a local table that references `clinics` would stop it from
 * being distributed, and a distributed table cannot reference a local one). Returns the tables
 * it distributed.
 */
export async function distributeTables(db: Db): Promise<string[]> {
  if (!(await hasCitus(db))) return [];
  const done = new Set(rowsOf<{ name: string }>(await db.execute(sql`select logicalrelid::regclass::text as name from pg_dist_partition`)).map((r) => r.name));
  const pending = placements().filter((p) => !done.has(p.table));
  if (pending.length === 0) return [];
  // A distributed table with a foreign key to a reference table must be created before any
  // parallel operation of the transaction.
  await db.execute(sql`set local citus.multi_shard_modify_mode to 'sequential'`);
  const names = pending.map((p) => p.table);
  const foreignKeys = rowsOf<{ tbl: string; name: string; def: string }>(
    await db.execute(sql`
      select conrelid::regclass::text as tbl, conname as name, pg_get_constraintdef(oid) as def
      from pg_constraint
      where contype = 'f'
        and (conrelid::regclass::text in ${names} or confrelid::regclass::text in ${names})
      order by conrelid::regclass::text, conname`),
  );
  for (const fk of foreignKeys) await db.execute(sql`alter table ${sql.identifier(fk.tbl)} drop constraint ${sql.identifier(fk.name)}`);
  for (const p of pending) {
    if (p.kind === "reference") {
      await db.execute(sql`select create_reference_table(${p.table})`);
    } else {
      await db.execute(sql`select create_distributed_table(${p.table}, ${p.column}, colocate_with => ${p.colocateWith ?? "none"})`);
    }
  }
  for (const fk of foreignKeys) {
    await db.execute(sql`alter table ${sql.identifier(fk.tbl)} add constraint ${sql.identifier(fk.name)} ${sql.raw(fk.def)}`);
  }
  return names;
}
