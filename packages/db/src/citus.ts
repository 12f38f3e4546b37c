import { is, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";
import { rowsOf } from "./client.ts";
import * as schema from "./schema/index.ts";

/**
 * Where a table lives on a Citus cluster (docs/scale-out.md): `users` is copied to every node, each
 * clinic's rows sit together on one node (`clinics` by id, every other table with a clinic by
 * clinic_id, all co-located: the rate-limit counters and the job queue too).
 */
export type Placement =
  | { table: string; kind: "reference" }
  | { table: string; kind: "distributed"; column: string; colocateWith: string | null };

// Sign-in (docs/sign-in.md#storage): clinic-free, read on every node, joined with users.
const referenceTables = new Set([
  "users",
  "shared_providers",
  "sessions",
  "identities",
  "login_states",
  "email_codes",
  "sign_in_counters",
]);
/** Tables distributed by a key of their own (not co-located with clinics). */
const ownKeyTables: Record<string, string> = { provider_busy: "user_id" };

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
  if (columns.some((c) => c.name === "clinic_id"))
    return { table: name, kind: "distributed", column: "clinic_id", colocateWith: "clinics" };
  return undefined;
}

/** Every table of the schema (the Drizzle table objects it exports). */
export function schemaTables(): PgTable[] {
  return Object.values(schema as Record<string, unknown>).filter((value): value is PgTable => is(value, PgTable));
}

/** Placements in the order Citus needs: users, the other reference tables, clinics, then the rest. */
export function placements(): Placement[] {
  // users first: other reference tables refer to it.
  const rank = (p: Placement) => (p.table === "users" ? 0 : p.kind === "reference" ? 1 : p.table === "clinics" ? 2 : 3);
  return schemaTables()
    .map((table) => {
      const placement = placementOf(table);
      if (!placement)
        throw new Error(`table ${getTableConfig(table).name} has no placement on Citus (packages/db/src/citus.ts)`);
      return placement;
    })
    .sort((a, b) => rank(a) - rank(b) || a.table.localeCompare(b.table));
}

/** Whether the database has the Citus extension. */
export async function hasCitus(db: Db): Promise<boolean> {
  const [row] = rowsOf<{ citus: boolean }>(
    await db.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as citus`),
  );
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
  const done = new Set(
    rowsOf<{ name: string }>(
      await db.execute(sql`select logicalrelid::regclass::text as name from pg_dist_partition`),
    ).map((r) => r.name),
  );
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
  for (const fk of foreignKeys)
    await db.execute(sql`alter table ${sql.identifier(fk.tbl)} drop constraint ${sql.identifier(fk.name)}`);
  for (const p of pending) {
    if (p.kind === "reference") {
      await db.execute(sql`select create_reference_table(${p.table})`);
    } else {
      await db.execute(
        sql`select create_distributed_table(${p.table}, ${p.column}, colocate_with => ${p.colocateWith ?? "none"})`,
      );
    }
  }
  for (const fk of foreignKeys) {
    await db.execute(
      sql`alter table ${sql.identifier(fk.tbl)} add constraint ${sql.identifier(fk.name)} ${sql.raw(fk.def)}`,
    );
  }
  return names;
}

/**
 * The database functions of the hot paths (drizzle/0008_hot_paths.sql), run where the clinic's
 * rows are: on Citus each is a distributed function co-located with `clinics` by its first
 * argument, so that `select f(clinic_id, …)` is delegated to the clinic's node and every statement
 * in it runs there (docs/performance.md). The helper without a clinic is only copied to every node.
 */
export const distributedFunctions: readonly { signature: string; clinicArgument: string | null }[] = [
  { signature: "clinic_iso_instant(timestamptz)", clinicArgument: null },
  // Time-ordered ids of the rows a booking inserts (drizzle/functions/clinic_uuid_v7.sql).
  { signature: "clinic_uuid_v7()", clinicArgument: null },
  // Versions that never repeat (drizzle/0017_versions_never_repeat.sql).
  { signature: "clinic_version_clock()", clinicArgument: null },
  { signature: "clinic_appointment_json(uuid,uuid)", clinicArgument: "p_clinic_id" },
  // Read from in queries of no distributed table (clinic_appointment_json, clinic_due_reminders).
  { signature: "clinic_appointments_json(uuid,uuid[])", clinicArgument: null },
  // Appointments as snapshots, and a snapshot as JSON (drizzle/0034_event_snapshots.sql): what an
  // appointment event keeps, and what E1 and the webhooks render from it.
  { signature: "clinic_appointment_snapshots(uuid,uuid[])", clinicArgument: null },
  { signature: "clinic_appointment_snapshot(uuid,uuid)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_snapshot_json(uuid,appointment_snapshot)", clinicArgument: null },
  { signature: "clinic_event_data(uuid,jsonb,appointment_snapshot)", clinicArgument: null },
  // Patient data (§21): erasure and the scrubbing it and retention share (docs/patient-data.md).
  { signature: "clinic_scrub_json(jsonb,text[],text[],text,boolean)", clinicArgument: null },
  { signature: "clinic_scrub_text(text,text[],text)", clinicArgument: null },
  { signature: "clinic_scrub_patient(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_erase_patient(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_retain(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_match_patient(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // The writes' answer: the appointment with its answers (§19, drizzle/functions/clinic_appointment_view.sql).
  { signature: "clinic_appointment_view(uuid,uuid)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_schedule_context(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_claim_key(uuid,uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_store_key(uuid,uuid,jsonb,uuid)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_check_schedule(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_check_daily_limit(uuid,uuid[],timestamptz[],timestamptz)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_bookings_changed(uuid,uuid[])", clinicArgument: "p_clinic_id" },
  // Reminders derived from the appointments: one page of a clinic's sweep (docs/events.md#reminders).
  { signature: "clinic_due_reminders(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_record_event(uuid,text,jsonb,appointment_snapshot)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_record_events(uuid,text,jsonb[],appointment_snapshot[])", clinicArgument: "p_clinic_id" },
  // The id of a delivery recorded with its batch (drizzle/functions/clinic_delivery_id.sql).
  { signature: "clinic_delivery_id(uuid,uuid)", clinicArgument: null },
  // A webhook's reading of its clinic's event feed (drizzle/functions/clinic_webhook_feed.sql).
  { signature: "clinic_webhook_feed(uuid,uuid,uuid,jsonb,integer,integer)", clinicArgument: "p_clinic_id" },
  // Write-back into providers' own calendars (drizzle/functions/clinic_plan_write_back.sql).
  { signature: "clinic_plan_write_back(uuid,text,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_book_appointment(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_reschedule_appointment(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // The front desk (drizzle/0009_front_desk.sql).
  { signature: "clinic_occupies(text,timestamptz,timestamptz)", clinicArgument: null },
  { signature: "clinic_status_entry(text,timestamptz,uuid,text)", clinicArgument: null },
  { signature: "clinic_requested_at(jsonb)", clinicArgument: null },
  {
    signature:
      "clinic_clear_expired_holds(uuid,uuid[],timestamptz,timestamptz,uuid,timestamptz,timestamptz,timestamptz)",
    clinicArgument: "p_clinic_id",
  },
  {
    signature:
      "clinic_cleared_expired_holds(uuid,uuid[],timestamptz,timestamptz,uuid,timestamptz,timestamptz,timestamptz)",
    clinicArgument: "p_clinic_id",
  },
  {
    signature:
      "clinic_expired_holds_in_way(uuid,uuid[],timestamptz,timestamptz,uuid,timestamptz,timestamptz,timestamptz)",
    clinicArgument: "p_clinic_id",
  },
  { signature: "clinic_clear_holds_in_way(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  {
    signature: "clinic_transition_refusal(text,text,boolean,boolean,timestamptz,timestamptz,timestamptz)",
    clinicArgument: null,
  },
  { signature: "clinic_set_status(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_release_hold(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_expire_confirmation(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // Messages, manage links and the waitlist (drizzle/0010_patient_messages.sql).
  { signature: "clinic_event_message_kind(text,jsonb)", clinicArgument: null },
  { signature: "clinic_plan_message(uuid,text,uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // Series and group sessions (drizzle/0011_series_groups.sql).
  { signature: "clinic_series_json(uuid,uuid)", clinicArgument: "p_clinic_id" },
  { signature: "clinic_book_series(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // One provider, many clinics (drizzle/0012_shared_providers.sql).
  { signature: "clinic_sync_busy(uuid,uuid,uuid[],timestamptz)", clinicArgument: "p_clinic_id" },
  {
    signature: "clinic_claim_busy(uuid,uuid,uuid,timestamptz,timestamptz,uuid,timestamptz,timestamptz,boolean)",
    clinicArgument: "p_clinic_id",
  },
  // Resources (drizzle/0013_resources.sql).
  { signature: "clinic_kind_scope(uuid,text)", clinicArgument: null },
  {
    signature:
      "clinic_claim_resources(uuid,uuid,jsonb,timestamptz,timestamptz,uuid,jsonb,timestamptz,timestamptz,boolean)",
    clinicArgument: "p_clinic_id",
  },
  // The job queue's claim (drizzle/functions/clinic_claim_jobs.sql, docs/jobs.md).
  { signature: "clinic_claim_jobs(uuid,text[],integer,integer,integer)", clinicArgument: "p_clinic_id" },
  // Guest holds (drizzle/0020_guest_holds.sql).
  { signature: "clinic_book_guest_hold(uuid,jsonb)", clinicArgument: "p_clinic_id" },
  // Reports: the schedule available minutes come from (drizzle/functions/clinic_report_schedule.sql).
  { signature: "clinic_report_schedule(uuid,jsonb)", clinicArgument: "p_clinic_id" },
];

/**
 * On Citus, makes the hot paths' functions distributed functions with their clinic argument;
 * idempotent. Citus copies a new function to every node by itself, but without a distribution
 * argument a call is not delegated: those are set here. Returns the functions it changed.
 */
export async function distributeFunctions(db: Db): Promise<string[]> {
  if (!(await hasCitus(db))) return [];
  const rows = rowsOf<{ name: string; delegated: boolean }>(
    await db.execute(sql`
      select replace(objid::regprocedure::text, ' ', '') as name, distribution_argument_index is not null as delegated
      from pg_catalog.pg_dist_object where classid = 'pg_proc'::regclass`),
  );
  const state = new Map(rows.map((r) => [r.name, r.delegated]));
  const changed: string[] = [];
  for (const f of distributedFunctions) {
    const current = state.get(f.signature.replaceAll("timestamptz", "timestampwithtimezone"));
    if (f.clinicArgument === null) {
      if (current !== undefined) continue;
      await db.execute(sql`select create_distributed_function(${f.signature})`);
    } else {
      if (current === true) continue;
      await db.execute(
        sql`select create_distributed_function(${f.signature}, ${f.clinicArgument}, colocate_with => 'clinics')`,
      );
    }
    changed.push(f.signature);
  }
  // A generic plan cannot be routed by Citus ("could not create distributed plan"): the hot paths'
  // functions plan generically on PostgreSQL only (drizzle/0014_generic_plans.sql, which skips the
  // setting on Citus). A database that became Citus after that migration still carries it: reset it.
  const generic = rowsOf<{ signature: string }>(
    await db.execute(sql`
      select p.oid::regprocedure::text as signature from pg_catalog.pg_proc p
      where left(p.proname, 7) = 'clinic_' and 'plan_cache_mode=force_generic_plan' = any (p.proconfig)`),
  );
  for (const { signature } of generic) {
    await db.execute(sql.raw(`alter function ${signature} reset plan_cache_mode`));
    changed.push(`${signature}: plan_cache_mode reset`);
  }
  return changed;
}
