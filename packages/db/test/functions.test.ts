// The hot paths' database functions (drizzle/0008_hot_paths.sql) must run where the clinic's rows
// are: on Citus each is delegated to the clinic's node by its first argument, and a statement in
// one that did not name the clinic would silently run on every shard from there. So: every
// function is in the list that migrate() distributes, and every statement of theirs that reads or
// writes a tenant table names the clinic of the call.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DbHandle } from "../src/index.ts";
import { distributedFunctions, placements, rowsOf } from "../src/index.ts";
import { openTestDatabase } from "../src/testing.ts";

let handle: DbHandle;
beforeAll(async () => {
  handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
});
afterAll(async () => {
  await handle.close();
});

interface Source {
  signature: string;
  body: string;
}

async function clinicFunctions(): Promise<Source[]> {
  return rowsOf<{ signature: string; body: string }>(
    await handle.db.execute(sql`
      select replace(p.oid::regprocedure::text, ' ', '') as signature, p.prosrc as body
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.proname like 'clinic\\_%'
      order by 1`),
  );
}

/** The statements of a function body that touch a table, with the table and the name it goes by. */
function tableUses(body: string): { statement: string; table: string; alias: string }[] {
  const statements = body
    .replace(/--[^\n]*/g, " ")
    .split(";")
    .map((s) => s.replace(/\s+/g, " ").trim());
  // Tables on a clinic's shard (provider_busy is on its provider's: docs/shared-providers.md).
  const tenant = new Set(
    placements()
      .filter((p) => p.kind === "distributed" && (p.table === "clinics" || p.column === "clinic_id"))
      .map((p) => p.table),
  );
  const uses: { statement: string; table: string; alias: string }[] = [];
  for (const statement of statements) {
    const keyword = "(?:from|where|set|values|on|select|join|left|order|group|returning|limit|for)\\b";
    for (const match of statement.matchAll(
      new RegExp(`\\b(?:from|join|into|update)\\s+([a-z_]+)(?:\\s+(?:as\\s+)?(?!${keyword})([a-z_]+))?`, "gi"),
    )) {
      const table = (match[1] ?? "").toLowerCase();
      if (!tenant.has(table)) continue;
      const alias = (match[2] ?? table).toLowerCase();
      uses.push({ statement, table, alias });
    }
  }
  return uses;
}

describe("the hot paths' database functions", () => {
  it("are exactly the functions migrate() distributes on Citus", async () => {
    const installed = (await clinicFunctions()).map((f) =>
      f.signature.replaceAll("timestampwithtimezone", "timestamptz"),
    );
    expect(installed).toEqual(distributedFunctions.map((f) => f.signature).sort());
  });

  it("name the clinic of the call in every statement on a tenant table", async () => {
    const unscoped: string[] = [];
    let checked = 0;
    for (const f of await clinicFunctions()) {
      const uses = tableUses(f.body);
      checked += uses.length;
      for (const use of uses) {
        const column = use.table === "clinics" ? "id" : "clinic_id";
        const scoped =
          new RegExp(`\\b(${use.alias}\\.)?${column}\\s*=\\s*p_clinic_id\\b`, "i").test(use.statement) ||
          // An insert names it as its first value, or as the first column of the rows it selects.
          new RegExp(
            `\\binsert into ${use.table}\\b[^(]*\\(\\s*clinic_id\\b[^)]*\\)\\s*(?:values\\s*\\(|select)\\s*p_clinic_id\\b`,
            "i",
          ).test(use.statement);
        // The one deliberate exception: a shared provider's change bumps their cached availability in
        // every clinic of theirs (docs/shared-providers.md), only for providers of several clinics.
        const sharedBump = use.table === "availability_versions" && /^clinic_(claim|sync)_busy\(/.test(f.signature);
        if (!scoped && !sharedBump) unscoped.push(`${f.signature}: ${use.table} in "${use.statement.slice(0, 160)}"`);
      }
    }
    expect(unscoped).toEqual([]);
    // Every read and write of the booking path was looked at (the parse found them).
    expect(checked).toBeGreaterThan(30);
  });

  it("would notice a statement that does not (the check itself)", () => {
    expect(tableUses("select count(*) from appointments a where a.status = 'booked'")).toHaveLength(1);
    const [use] = tableUses("select count(*) into v from appointments a where a.status = 'booked'");
    expect(use && new RegExp(`\\b(${use.alias}\\.)?clinic_id\\s*=\\s*p_clinic_id\\b`, "i").test(use.statement)).toBe(
      false,
    );
  });
});

describe("clinic_uuid_v7", () => {
  it("makes version 7 UUIDs whose first 48 bits are the milliseconds they were made at, in order across milliseconds", async () => {
    const before = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [row] = rowsOf<{ ids: string[] }>(
        await handle.db.execute(sql`select array_agg(clinic_uuid_v7()) as ids from generate_series(1, 20)`),
      );
      ids.push(...(row?.ids ?? []));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const after = Date.now();
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    const msOf = (id: string) => parseInt(id.replaceAll("-", "").slice(0, 12), 16);
    for (const id of ids) {
      // xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx: version 7, RFC 9562's variant.
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(msOf(id)).toBeGreaterThanOrEqual(before - 1_000);
      expect(msOf(id)).toBeLessThanOrEqual(after + 1_000);
    }
    // Made in separate statements milliseconds apart: each batch sorts after the one before it.
    for (let batch = 1; batch < 5; batch++)
      expect(msOf(ids[batch * 20] ?? "")).toBeGreaterThan(msOf(ids[batch * 20 - 1] ?? ""));
  });
});
