import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { migrate, migrationsFolder, rowsOf } from "../src/index.ts";
import { createScratchDatabase } from "../src/testing.ts";

const databaseUrl = inject("databaseUrl");

// Several server processes may start together against one PostgreSQL database.
describe.skipIf(!databaseUrl)("migrations under concurrent starts (PostgreSQL)", () => {
  // 120 s: on Citus it creates a database on three nodes and migrates it from the first migration
  // (14 s on an idle cluster; past the default 30 s beside the api suite in a CI run).
  it("three processes migrating a fresh database at once apply every migration exactly once", async () => {
    // A database of its own (on Citus, a Citus database: the migrations then distribute it too).
    const scratch = await createScratchDatabase(databaseUrl, "clinic_migrate");
    try {
      const handles = await Promise.all([1, 2, 3].map(() => scratch.open({ poolMax: 1 })));
      try {
        const applied = await Promise.all(handles.map((h) => migrate(h.db)));
        const journal = JSON.parse(await readFile(`${migrationsFolder}meta/_journal.json`, "utf8")) as {
          entries: { tag: string }[];
        };
        const all = journal.entries.map((e) => e.tag);
        expect(applied.flat().sort()).toEqual([...all].sort());
        const first = handles[0];
        if (!first) throw new Error("no handle");
        const rows = rowsOf<{ tag: string }>(
          await first.db.execute(sql`select tag from schema_migrations order by tag`),
        );
        expect(rows.map((r) => r.tag)).toEqual([...all].sort());
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    } finally {
      await scratch.drop();
    }
  }, 120_000);
});
