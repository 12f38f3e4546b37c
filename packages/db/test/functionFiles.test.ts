// One home per database function (docs/database-functions.md): each function's current text lives
// in exactly one file, drizzle/functions/<name>.sql, which the migrator applies when it changes.
// These tests fail when the migrated database runs a function (body, arguments, options) that is
// not its file's, when a file defines another function than its name or more than one, when two
// files define one function, and when a versioned migration after the move defines a function.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DbHandle } from "../src/index.ts";
import { functionFiles, hasCitus, migrationsFolder, rowsOf, statementsOf } from "../src/index.ts";
import { openTestDatabase } from "../src/testing.ts";

let handle: DbHandle;
beforeAll(async () => {
  handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
});
afterAll(async () => {
  await handle.close();
});

/** The first versioned migration after which no migration may define a function. */
const FIRST_WITHOUT_FUNCTIONS = 20;

const defines = /\bcreate\s+(?:or\s+replace\s+)?function\s+(?:public\.)?([a-z_][a-z0-9_]*)/gi;

/** The functions a text defines, in order. */
const definedIn = (text: string): string[] =>
  [...text.replace(/--[^\n]*/g, " ").matchAll(defines)].map((m) => (m[1] ?? "").toLowerCase());

/** A function as the database runs it: its whole definition, with the schema left out. */
async function definitions(schema: string, db = handle.db): Promise<Map<string, string>> {
  const rows = rowsOf<{ name: string; def: string }>(
    await db.execute(sql`
      select p.proname as name, pg_get_functiondef(p.oid) as def
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = ${schema} and p.prokind = 'f'
      order by p.proname, p.oid`),
  );
  const map = new Map<string, string>();
  for (const row of rows) {
    const def = row.def.replace(`FUNCTION ${schema}.`, "FUNCTION ");
    map.set(row.name, map.has(row.name) ? `${map.get(row.name) ?? ""}\n-- overload --\n${def}` : def);
  }
  return map;
}

/** Our own functions in `public` (extensions' functions live in their own schemas or are excluded). */
async function installedNames(): Promise<string[]> {
  return rowsOf<{ name: string }>(
    await handle.db.execute(sql`
      select distinct p.proname as name
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prokind = 'f'
        and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
      order by 1`),
  ).map((r) => r.name);
}

class Rollback extends Error {}

describe("one file per database function", () => {
  it("each file defines exactly the function it is named after, and no two files define one", async () => {
    const files = await functionFiles();
    expect(files.length).toBeGreaterThan(25);
    const owners = new Map<string, string[]>();
    for (const file of files) {
      const names = definedIn(file.text);
      expect(names, file.name).toEqual([file.name]);
      for (const name of names) owners.set(name, [...(owners.get(name) ?? []), file.name]);
    }
    expect([...owners].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  it("every function of the database has its file, and every file's function is in the database", async () => {
    const files = (await functionFiles()).map((f) => f.name);
    expect(await installedNames()).toEqual(files);
  });

  it("the database runs each file's text: body, arguments, result and options (SET included)", async () => {
    const files = await functionFiles();
    const installed = await definitions("public");
    const citus = await hasCitus(handle.db);
    const differing: string[] = [];
    // Each file applied again in a scratch schema, inside a transaction that is rolled back.
    await handle.db
      .transaction(async (tx) => {
        if (citus) await tx.execute(sql`set local citus.enable_ddl_propagation = off`);
        await tx.execute(sql`create schema function_files_check`);
        await tx.execute(sql`set local search_path = function_files_check, public`);
        await tx.execute(sql`set local check_function_bodies = off`);
        for (const file of files) for (const statement of statementsOf(file.text)) await tx.execute(sql.raw(statement));
        const fresh = await definitions("function_files_check", tx);
        for (const file of files) {
          const want = fresh.get(file.name);
          const have = installed.get(file.name);
          if (want === undefined || want !== have) differing.push(file.name);
        }
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
    expect(differing).toEqual([]);
  });

  it("would notice a function that differs from its file (the check itself)", async () => {
    const [file] = await functionFiles();
    if (!file) throw new Error("no function files");
    const changed = file.text.replace(/\$(\w*)\$/, (tag) => `${tag}\n-- changed`);
    expect(changed).not.toBe(file.text);
    await handle.db
      .transaction(async (tx) => {
        if (await hasCitus(tx)) await tx.execute(sql`set local citus.enable_ddl_propagation = off`);
        await tx.execute(sql`create schema function_files_probe`);
        await tx.execute(sql`set local search_path = function_files_probe, public`);
        await tx.execute(sql`set local check_function_bodies = off`);
        for (const statement of statementsOf(changed)) await tx.execute(sql.raw(statement));
        const probe = await definitions("function_files_probe", tx);
        const installed = await definitions("public", tx);
        expect(probe.get(file.name)).toBeDefined();
        expect(probe.get(file.name)).not.toBe(installed.get(file.name));
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  });

  it("no versioned migration after the move defines a function", async () => {
    const journal = JSON.parse(await readFile(`${migrationsFolder}meta/_journal.json`, "utf8")) as {
      entries: { idx: number; tag: string }[];
    };
    const offending: string[] = [];
    for (const entry of journal.entries.filter((e) => e.idx >= FIRST_WITHOUT_FUNCTIONS)) {
      const text = await readFile(`${migrationsFolder}${entry.tag}.sql`, "utf8");
      for (const name of definedIn(text)) offending.push(`${entry.tag}: ${name}`);
    }
    expect(offending).toEqual([]);
    // The check itself finds a definition.
    expect(definedIn("-- x\nCREATE OR REPLACE FUNCTION clinic_x(p uuid) RETURNS void")).toEqual(["clinic_x"]);
  });
});
