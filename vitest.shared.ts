// The test options every package's vitest.config.ts shares (docs/testing.md).
import type { ViteUserConfig } from "vitest/config";

export const sharedTest = {
  include: ["test/**/*.test.ts"],
  globalSetup: ["../../vitest.global-setup.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // One module graph per worker process, not one per test file: importing the api's graph again
  // for each of ~120 files was over half of the suites' CPU time (docs/testing.md#speed). It holds
  // because no test mocks a module, stubs a global or changes the environment, and each test builds
  // its own data; a file that must have a process of its own says so in its own config.
  isolate: false,
} satisfies NonNullable<ViteUserConfig["test"]>;

/** The global setups of a package whose tests make migrated scratch databases (the api, the server). */
export const withScratchTemplate = [...sharedTest.globalSetup, "../../vitest.scratch-template.ts"];

/**
 * What a package leaves out on the PostgreSQL and Citus targets (DATABASE_URL set, docs/testing.md#ci):
 * files that never open a database (the pure domain's), which ran on the embedded target of the
 * same run and prove nothing more on another database. A run without DATABASE_URL runs them all.
 */
export function databaseFreeFiles(globs: string[]): string[] {
  // The environment itself, as the global setup's loadConfig reads it: a vitest config is bundled
  // on its own and cannot import the workspace's TypeScript packages.
  return process.env.DATABASE_URL ? globs : [];
}
