// Runs once per vitest run of a package: prepares the database every test file of the run uses.
// PGlite (default): migrate once, dump the data directory to a
// template file that test files load. PostgreSQL (DATABASE_URL set): the same on that database, once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { loadConfig } from "@clinic/config";
import { migrate, openDatabase } from "@clinic/db";
import { dropScratchTemplate, writePgliteTemplate } from "@clinic/db/testing";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { databaseUrl } = loadConfig();
  if (databaseUrl) {
    const handle = await openDatabase({ url: databaseUrl, poolMax: 1 });
    try {
      await migrate(handle.db);
    } finally {
      await handle.close();
    }
    // A template an earlier run left (stopped before its teardown) may predate a migration: a new one per run.
    await dropScratchTemplate(databaseUrl);
    project.provide("databaseUrl", databaseUrl);
    project.provide("pgliteTemplate", undefined);
    // The migrated template of this run's scratch databases, if a test built one (packages/db/src/testing.ts).
    return () => dropScratchTemplate(databaseUrl);
  }
  const dir = await mkdtemp(join(tmpdir(), "clinic-pglite-"));
  const template = join(dir, "template.tar");
  await writePgliteTemplate(template);
  project.provide("databaseUrl", undefined);
  project.provide("pgliteTemplate", template);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
