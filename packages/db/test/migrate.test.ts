import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { migrate, migrationsFolder, openDatabase, rowsOf } from "../src/index.ts";

const databaseUrl = inject("databaseUrl");

// Several server processes may start together against one PostgreSQL database.
describe.skipIf(!databaseUrl)("migrations under concurrent starts (PostgreSQL)", () => {
  it("three processes migrating a fresh database at once apply every migration exactly once", async () => {
    const admin = await openDatabase({ url: databaseUrl, poolMax: 1 });
    const name = `clinic_migrate_${String(Date.now())}_${String(Math.floor(Math.random() * 1e6))}`;
    await admin.db.execute(sql.raw(`create database ${name}`));
    try {
      const url = new URL(databaseUrl ?? "");
      url.pathname = `/${name}`;
      const handles = await Promise.all([1, 2, 3].map(() => openDatabase({ url: url.toString(), poolMax: 1 })));
      try {
        const applied = await Promise.all(handles.map((h) => migrate(h.db)));
        const journal = JSON.parse(await readFile(`${migrationsFolder}meta/_journal.json`, "utf8")) as { entries: { tag: string }[] };
        const all = journal.entries.map((e) => e.tag);
        expect(applied.flat().sort()).toEqual([...all].sort());
        const first = handles[0];
        if (!first) throw new Error("no handle");
        const rows = rowsOf<{ tag: string }>(await first.db.execute(sql`select tag from schema_migrations order by tag`));
        expect(rows.map((r) => r.tag)).toEqual([...all].sort());
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    } finally {
      await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
      await admin.close();
    }
  });
});
