import { afterAll, beforeAll, inject } from "vitest";
import type { Db, DbHandle } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";

/** Opens this test file's database (PGlite template or the PostgreSQL server) for the whole file. */
export function useTestDatabase(): { readonly db: Db; readonly handle: DbHandle } {
  let handle: DbHandle | undefined;
  beforeAll(async () => {
    handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get db() {
      if (!handle) throw new Error("database not open yet");
      return handle.db;
    },
    get handle() {
      if (!handle) throw new Error("database not open yet");
      return handle;
    },
  };
}
