// A second global setup, for the packages whose tests make migrated scratch databases (the api's
// and the server's): builds the run's scratch template before any test file runs, so that each
// file's hook only copies it (docs/testing.md#scratch-databases). After vitest.global-setup.ts,
// which drops a template an earlier run left and drops this run's at the end.
import { loadConfig } from "@clinic/config";
import { buildScratchTemplate } from "@clinic/db/testing";

export default async function setup(): Promise<void> {
  const { databaseUrl } = loadConfig();
  if (databaseUrl) await buildScratchTemplate(databaseUrl);
}
