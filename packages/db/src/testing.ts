import type {} from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import type { DbHandle } from "./client.ts";
import { openDatabase } from "./client.ts";
import { migrate } from "./migrate.ts";

declare module "vitest" {
  /** What the test run's global setup hands every test file (see vitest.global-setup.ts). */
  export interface ProvidedContext {
    databaseUrl: string | undefined;
    pgliteTemplate: string | undefined;
  }
}

/**
 * Migrates a fresh in-memory PGlite once and writes its data directory to `path`, so that every
 * test file can start from a migrated database in milliseconds instead of re-running migrations.
 */
export async function writePgliteTemplate(path: string, prepare?: (handle: DbHandle) => Promise<void>): Promise<void> {
  const handle = await openDatabase({});
  try {
    await migrate(handle.db);
    await prepare?.(handle);
    const dump = await dumpPglite(handle);
    await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await handle.close();
  }
}

async function dumpPglite(handle: DbHandle): Promise<Blob> {
  const client: unknown = (handle.db as unknown as { $client: unknown }).$client;
  if (typeof client === "object" && client !== null && "dumpDataDir" in client && typeof client.dumpDataDir === "function") {
    const dumped: unknown = await (client.dumpDataDir as (c: string) => Promise<unknown>).call(client, "none");
    if (dumped instanceof Blob) return dumped;
  }
  throw new Error("the database handle is not an embedded PGlite database");
}

/**
 * The database a test file works on: the PostgreSQL server when `url` is given (migrated once
 * by the test run's global setup), otherwise a private in-memory PGlite loaded from the template.
 */
export async function openTestDatabase(options: { url?: string | undefined; templatePath?: string | undefined }): Promise<DbHandle> {
  if (options.url) return openDatabase({ url: options.url, poolMax: 20 });
  if (options.templatePath) {
    const bytes = await readFile(options.templatePath);
    return openDatabase({ pgliteLoad: new Blob([bytes]) });
  }
  const handle = await openDatabase({});
  await migrate(handle.db);
  return handle;
}
