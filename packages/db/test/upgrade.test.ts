import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { type DbHandle, hasCitus, migrate, pgErrorInfo, rowsOf } from "../src/index.ts";
import { createScratchDatabase, type ScratchDatabase } from "../src/testing.ts";

// A database that ran v1 (migrations through 0002_constraints) and holds data is upgraded in place
// to the tenant keys of scale-out (0007_tenant_keys) and, on Citus, distributed: every row is
// still there, with its id, under the new keys.
const v1 = "0002_constraints";
const tenantTables = [
  "clinic_members",
  "services",
  "work_hours",
  "closures",
  "appointments",
  "audit_log",
  "idempotency_keys",
  "availability_versions",
];

let scratch: ScratchDatabase;
let handle: DbHandle;
beforeAll(async () => {
  scratch = await createScratchDatabase(inject("databaseUrl"), "clinic_upgrade");
  handle = await scratch.open();
}, 60_000);
afterAll(async () => {
  await handle.close();
  await scratch.drop();
});

const run = (text: string) => handle.db.execute(sql.raw(text));
const count = async (table: string) => {
  const [row] = rowsOf<{ n: number }>(await run(`select count(*)::int as n from ${table}`));
  return row?.n ?? -1;
};

/** Two clinics of v1 data, written with v1's columns only. */
async function seedV1() {
  const ids = {
    a: crypto.randomUUID(),
    b: crypto.randomUUID(),
    provider: crypto.randomUUID(),
    staff: crypto.randomUUID(),
  };
  await run(
    `insert into users (id, email) values ('${ids.provider}', 'provider@v1.test'), ('${ids.staff}', 'staff@v1.test')`,
  );
  for (const [clinic, name] of [
    [ids.a, "A"],
    [ids.b, "B"],
  ] as const) {
    await run(`insert into clinics (id, name, timezone) values ('${clinic}', 'Clinic ${name}', 'Europe/Berlin')`);
    await run(`insert into clinic_members (clinic_id, user_id, full_name, clinic_role, is_provider, status) values
      ('${clinic}', '${ids.provider}', 'Pat Provider', 'STAFF', true, 'approved'),
      ('${clinic}', '${ids.staff}', 'Sam Staff', 'CLINIC_ADMIN', false, 'approved')`);
    await run(
      `insert into services (clinic_id, name, duration_min, provider_id) values ('${clinic}', 'Check-up', 30, '${ids.provider}'), ('${clinic}', 'Any', 20, null)`,
    );
    await run(`insert into work_hours (clinic_id, scope, provider_id, weekday, opens_min, closes_min) values
      ('${clinic}', 'clinic', null, 1, 540, 1020), ('${clinic}', 'provider', '${ids.provider}', 1, 540, 720)`);
    await run(`insert into closures (clinic_id, scope, provider_id, starts_at, ends_at, reason) values
      ('${clinic}', 'provider', '${ids.provider}', '2027-01-04 09:00+00', '2027-01-04 10:00+00', 'training')`);
    await run(`insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, status, patient_name, canceled_at)
      select '${clinic}'::uuid, s.id, '${ids.provider}'::uuid, timestamptz '2027-01-11 09:00+00', timestamptz '2027-01-11 09:30+00', 'booked', 'Pat', null::timestamptz from services s where s.clinic_id = '${clinic}' and s.name = 'Check-up'
      union all
      select '${clinic}'::uuid, s.id, '${ids.provider}'::uuid, timestamptz '2027-01-11 10:00+00', timestamptz '2027-01-11 10:30+00', 'canceled', 'Kim', now() from services s where s.clinic_id = '${clinic}' and s.name = 'Check-up'`);
    await run(`insert into audit_log (clinic_id, action, resource_type, resource_id, user_email, details)
      select '${clinic}', 'SERVICE_CREATED', 'service', id, 'staff@v1.test', '{}'::jsonb from services where clinic_id = '${clinic}'`);
    await run(
      `insert into idempotency_keys (clinic_id, user_id, key, request_hash, status_code, response) values ('${clinic}', '${ids.staff}', 'k1', 'h', 201, '{}'::jsonb)`,
    );
    await run(`insert into availability_versions (clinic_id, scope_id, version) values ('${clinic}', '${clinic}', 3)`);
  }
  return ids;
}

describe("upgrading a v1 database in place", () => {
  it("keeps every row and id under the new (clinic_id, id) keys, distributed when on Citus", async () => {
    await migrate(handle.db, { through: v1 });
    const ids = await seedV1();
    const before = new Map<string, number>();
    const idsBefore = new Map<string, string[]>();
    for (const table of [...tenantTables, "clinics", "users"]) before.set(table, await count(table));
    for (const table of ["clinic_members", "services", "work_hours", "closures", "appointments", "audit_log"]) {
      idsBefore.set(
        table,
        rowsOf<{ id: string }>(await run(`select id from ${table} order by id`)).map((r) => r.id),
      );
    }

    const applied = await migrate(handle.db);
    expect(applied).toContain("0007_tenant_keys");

    for (const [table, n] of before) expect({ table, n: await count(table) }).toEqual({ table, n });
    for (const [table, list] of idsBefore) {
      expect(rowsOf<{ id: string }>(await run(`select id from ${table} order by id`)).map((r) => r.id)).toEqual(list);
      const [pk] = rowsOf<{ def: string }>(
        await run(
          `select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = '${table}'::regclass and contype = 'p'`,
        ),
      );
      expect({ table, pk: pk?.def }).toEqual({ table, pk: "PRIMARY KEY (clinic_id, id)" });
    }
    // Upgraded data keeps its meaning: joins across the re-keyed tables still find the rows, and
    // the provider still cannot be double-booked.
    const [joined] = rowsOf<{ n: number }>(
      await run(`select count(*)::int as n from appointments a
        join services s on s.clinic_id = a.clinic_id and s.id = a.service_id
        join clinic_members m on m.clinic_id = a.clinic_id and m.user_id = a.provider_id
        where a.clinic_id = '${ids.a}'`),
    );
    expect(joined?.n).toBe(2);
    let refused: unknown;
    try {
      await run(`insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end, patient_name)
        select clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end, 'Again' from appointments where clinic_id = '${ids.a}' and status = 'booked'`);
    } catch (error) {
      refused = error;
    }
    expect(pgErrorInfo(refused)?.constraint).toBe("appointments_no_double_booking");

    if (await hasCitus(handle.db)) {
      const placed = rowsOf<{ name: string; kind: string; column: string }>(
        await run(
          `select table_name::text as name, citus_table_type as kind, distribution_column as column from citus_tables order by 1`,
        ),
      );
      const byName = new Map(placed.map((p) => [p.name, p]));
      expect(byName.get("users")?.kind).toBe("reference");
      expect(byName.get("clinics")?.column).toBe("id");
      for (const table of tenantTables) expect(byName.get(table)?.column).toBe("clinic_id");
    }
  }, 120_000);
});
