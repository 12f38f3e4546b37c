import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DbHandle } from "../src/index.ts";
import { getTableConfig } from "drizzle-orm/pg-core";
import {
  clinicMembers,
  clinics,
  migrate,
  pgErrorInfo,
  placements,
  rowsOf,
  schemaTables,
  users,
  workHours,
  appointments,
  services,
} from "../src/index.ts";
import { openTestDatabase } from "../src/testing.ts";

let handle: DbHandle;
beforeAll(async () => {
  handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
});
afterAll(async () => {
  await handle.close();
});

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

async function clinicWithProvider() {
  const [clinic] = await handle.db.insert(clinics).values({ name: "Schema test" }).returning();
  const [user] = await handle.db
    .insert(users)
    .values({ email: `${crypto.randomUUID()}@test.example` })
    .returning();
  if (!clinic || !user) throw new Error("insert returned nothing");
  await handle.db
    .insert(clinicMembers)
    .values({ clinicId: clinic.id, userId: user.id, fullName: "P", email: "p@test.example", isProvider: true });
  return { clinicId: clinic.id, userId: user.id };
}

describe("schema", () => {
  it("stamps updated_at by the database clock, strictly later on every update", async () => {
    const [clinic] = await handle.db.insert(clinics).values({ name: "Stamps" }).returning();
    if (!clinic) throw new Error("insert returned nothing");
    // Within one transaction now() stands still: only the strictly-later rule moves the stamp.
    const stamps = await handle.db.transaction(async (tx) => {
      const seen: Date[] = [];
      for (const name of ["A", "B", "C"]) {
        const [row] = await tx
          .update(clinics)
          .set({ name })
          .where(sql`${clinics.id} = ${clinic.id}`)
          .returning();
        if (row) seen.push(row.updatedAt);
      }
      const [{ now } = { now: "" }] = rowsOf<{ now: string }>(await tx.execute(sql`select now()::text as now`));
      return { seen, now: new Date(now) };
    });
    expect(stamps.seen).toHaveLength(3);
    const [first, second, third] = stamps.seen.map((d) => d.getTime());
    expect(first).toBeGreaterThanOrEqual(stamps.now.getTime() - 1);
    expect(second).toBe((first ?? 0) + 1);
    expect(third).toBe((first ?? 0) + 2);
  });

  it("names no constraint with a trailing _<digits>, which on Citus is a shard id (pgErrorInfo strips it)", async () => {
    const names = schemaTables().map((table) => getTableConfig(table).name);
    const rows = rowsOf<{ name: string }>(
      await handle.db.execute(
        sql`select conname as name from pg_constraint where conrelid::regclass::text in ${names}`,
      ),
    );
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.filter((r) => /_\d+$/.test(r.name))).toEqual([]);
  });

  it("places every table of the schema on Citus: users and the clinic-free tables on every node, the rest by clinic", () => {
    const byTable = new Map(placements().map((p) => [p.table, p]));
    expect(byTable.get("users")).toEqual({ table: "users", kind: "reference" });
    expect(byTable.get("clinics")).toMatchObject({ kind: "distributed", column: "id" });
    // One provider's time in all their clinics is on one shard (docs/shared-providers.md).
    expect(byTable.get("shared_providers")).toEqual({ table: "shared_providers", kind: "reference" });
    expect(byTable.get("provider_busy")).toMatchObject({ kind: "distributed", column: "user_id", colocateWith: null });
    for (const table of schemaTables()) {
      const { name, columns } = getTableConfig(table);
      if (columns.some((c) => c.name === "clinic_id") && name !== "provider_busy")
        expect(byTable.get(name)).toMatchObject({ column: "clinic_id", colocateWith: "clinics" });
    }
    // Sign-in's tables have no clinic: on every node, joined with users (docs/sign-in.md#storage).
    for (const name of ["sessions", "identities", "login_states", "email_codes", "sign_in_counters"])
      expect(byTable.get(name)).toEqual({ table: name, kind: "reference" });
    expect(
      placements()
        .slice(0, 8)
        .map((p) => p.table),
    ).toEqual([
      "users",
      "email_codes",
      "identities",
      "login_states",
      "sessions",
      "shared_providers",
      "sign_in_counters",
      "clinics",
    ]);
  });

  it("indexes every foreign key to users by its column, so that deleting a user scans no whole table", async () => {
    // ON DELETE SET NULL / CASCADE finds the referencing rows by the column: without an index
    // that starts with it, one scan of every clinic's rows per deleted user (a first login that
    // folds an invited placeholder in deletes one).
    const unindexed = rowsOf<{ fk: string }>(
      await handle.db.execute(sql`
        select c.conrelid::regclass::text || '.' || a.attname as fk
        from pg_constraint c
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and c.confrelid = 'users'::regclass and cardinality(c.conkey) = 1
          and not exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1])
        order by 1`),
    );
    expect(unindexed).toEqual([]);
  });

  it("indexes a patient's appointments only where there is a patient user, and a patient's query still reads that index", async () => {
    // A staff booking for a patient by name (most bookings) writes no entry of it (issue 49).
    const [index] = rowsOf<{ definition: string }>(
      await handle.db.execute(sql`select pg_get_indexdef('appointments_patient_start_idx'::regclass) as definition`),
    );
    expect(index?.definition).toMatch(/WHERE \(patient_user_id IS NOT NULL\)$/);
    // The open-bookings count of clinic_book_appointment (a generic plan: the patient is a parameter).
    const plan = await handle.db.transaction(async (tx) => {
      // On Citus the shard's node plans it: the setting goes there too.
      const [citus] = rowsOf<{ on: boolean }>(
        await tx.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as on`),
      );
      if (citus?.on) await tx.execute(sql`set local citus.propagate_set_commands = 'local'`);
      await tx.execute(sql`set local enable_seqscan = off`);
      return rowsOf<{ "QUERY PLAN": string }>(
        await tx.execute(sql`explain select count(*) from appointments a
          where a.clinic_id = ${crypto.randomUUID()}::uuid and a.patient_user_id = ${crypto.randomUUID()}::uuid
            and a.starts_at > now()`),
      )
        .map((r) => r["QUERY PLAN"])
        .join("\n");
    });
    expect(plan).toMatch(/appointments_patient_start_idx/);
  });

  it("indexes every event type but appointment.booked, which a generic plan reads only with the index's predicate", async () => {
    // A booking writes no entry of it (issue 49); E1's filter adds the predicate (listEvents), since a
    // prepared statement's generic plan cannot prove it from `type in ($n, …)` alone.
    const [index] = rowsOf<{ definition: string }>(
      await handle.db.execute(sql`select pg_get_indexdef('events_clinic_type_seq_idx'::regclass) as definition`),
    );
    expect(index?.definition).toMatch(/WHERE \(type <> 'appointment\.booked'::text\)$/);
    const genericPlan = (predicate: boolean) =>
      handle.db.transaction(async (tx) => {
        const [citus] = rowsOf<{ on: boolean }>(
          await tx.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as on`),
        );
        if (citus?.on) await tx.execute(sql`set local citus.propagate_set_commands = 'local'`);
        await tx.execute(sql`set local enable_seqscan = off`);
        await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
        await tx.execute(
          sql.raw(`prepare events_filtered (uuid, text, text) as
            select seq from events where clinic_id = $1 and type in ($2, $3)
            ${predicate ? "and type <> 'appointment.booked'" : ""}`),
        );
        const plan = rowsOf<{ "QUERY PLAN": string }>(
          await tx.execute(
            sql.raw(
              `explain execute events_filtered('${crypto.randomUUID()}', 'waitlist.offered', 'calendar.recovered')`,
            ),
          ),
        )
          .map((r) => r["QUERY PLAN"])
          .join("\n");
        await tx.execute(sql`deallocate events_filtered`);
        return { plan, citus: citus?.on === true };
      });
    expect((await genericPlan(true)).plan).toMatch(/events_clinic_type_seq_idx/);
    // On Citus the shard gets the query with the values in it, so it may read the index either way.
    const without = await genericPlan(false);
    if (!without.citus) expect(without.plan).not.toMatch(/events_clinic_type_seq_idx/);
  });

  it("keeps the rate-limit counters unlogged (no WAL a booking request) and every other table logged", async () => {
    const tables = rowsOf<{ relname: string; relpersistence: string }>(
      await handle.db.execute(sql`select c.relname, c.relpersistence::text as relpersistence from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname !~ '_[0-9]+$'`),
    );
    expect(tables.filter((t) => t.relpersistence === "u").map((t) => t.relname)).toEqual(["rate_limit_counters"]);
    expect(tables.length).toBeGreaterThan(20);
  });

  it("re-running the migrations is a no-op", async () => {
    expect(await migrate(handle.db)).toEqual([]);
  });

  it("refuses overlapping work hours of one owner and weekday, allows adjacent ones", async () => {
    const { clinicId, userId } = await clinicWithProvider();
    await handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 540, closesMin: 720 });
    await handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 720, closesMin: 780 });
    // Same times for the provider scope do not collide with the clinic's.
    await handle.db
      .insert(workHours)
      .values({ clinicId, scope: "provider", providerId: userId, weekday: 1, opensMin: 540, closesMin: 720 });
    const error = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 660, closesMin: 700 }),
    );
    expect(pgErrorInfo(error)).toEqual({ code: "23P01", constraint: "work_hours_no_overlap" });
  });

  it("refuses closing not after opening and weekdays outside 1-7", async () => {
    const { clinicId } = await clinicWithProvider();
    const backwards = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 2, opensMin: 600, closesMin: 600 }),
    );
    expect(pgErrorInfo(backwards)).toEqual({ code: "23514", constraint: "work_hours_time_range" });
    const weekday = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 8, opensMin: 600, closesMin: 660 }),
    );
    expect(pgErrorInfo(weekday)?.constraint).toBe("work_hours_weekday_range");
  });

  it("refuses two booked appointments of one provider whose occupied ranges overlap, but not after a cancel", async () => {
    const { clinicId, userId } = await clinicWithProvider();
    const [service] = await handle.db
      .insert(services)
      .values({ clinicId, name: "S", durationMin: 30, providerId: userId })
      .returning();
    if (!service) throw new Error("no service");
    const appointment = (start: string, end: string, before = 0, after = 0) => {
      const startsAt = new Date(start);
      const endsAt = new Date(end);
      return {
        clinicId,
        serviceId: service.id,
        providerId: userId,
        patientName: "X",
        startsAt,
        endsAt,
        bufferBeforeMin: before,
        bufferAfterMin: after,
        occupiedStart: new Date(startsAt.getTime() - before * 60_000),
        occupiedEnd: new Date(endsAt.getTime() + after * 60_000),
      };
    };
    const [first] = await handle.db
      .insert(appointments)
      .values(appointment("2030-01-07T09:00:00Z", "2030-01-07T09:30:00Z", 0, 10))
      .returning();
    const overlap = await errorOf(
      handle.db.insert(appointments).values(appointment("2030-01-07T09:15:00Z", "2030-01-07T09:45:00Z")),
    );
    expect(pgErrorInfo(overlap)).toEqual({ code: "23P01", constraint: "appointments_no_double_booking" });
    // 09:30 does not overlap 09:00-09:30, but the first one's 10 minutes after do.
    const buffers = await errorOf(
      handle.db.insert(appointments).values(appointment("2030-01-07T09:30:00Z", "2030-01-07T10:00:00Z")),
    );
    expect(pgErrorInfo(buffers)).toEqual({ code: "23P01", constraint: "appointments_no_double_booking" });
    await handle.db.insert(appointments).values(appointment("2030-01-07T09:40:00Z", "2030-01-07T10:00:00Z"));
    // The occupied range must match the buffers.
    const inconsistent = await errorOf(
      handle.db
        .insert(appointments)
        .values({ ...appointment("2030-01-08T09:00:00Z", "2030-01-08T09:30:00Z"), bufferBeforeMin: 5 }),
    );
    expect(pgErrorInfo(inconsistent)?.constraint).toBe("appointments_occupied_consistent");
    if (!first) throw new Error("no appointment");
    await handle.db.execute(
      sql`update appointments set status = 'canceled', canceled_at = now() where id = ${first.id}`,
    );
    await handle.db.insert(appointments).values(appointment("2030-01-07T09:00:00Z", "2030-01-07T09:30:00Z"));
  });

  it("refuses a service provider who is not a member of the clinic", async () => {
    const { userId } = await clinicWithProvider();
    const other = await clinicWithProvider();
    const error = await errorOf(
      handle.db.insert(services).values({ clinicId: other.clinicId, name: "S", durationMin: 30, providerId: userId }),
    );
    expect(pgErrorInfo(error)).toEqual({ code: "23503", constraint: "services_provider_fk" });
  });

  it("keeps millisecond precision of instants", async () => {
    const [clinic] = await handle.db.insert(clinics).values({ name: "ms" }).returning();
    if (!clinic) throw new Error("no clinic");
    const at = new Date("2026-11-22T08:15:30.123Z");
    const [updated] = await handle.db
      .update(clinics)
      .set({ updatedAt: at })
      .where(sql`id = ${clinic.id}`)
      .returning();
    expect(updated?.updatedAt.toISOString()).toBe("2026-11-22T08:15:30.123Z");
  });
});
