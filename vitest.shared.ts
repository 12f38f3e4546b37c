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
