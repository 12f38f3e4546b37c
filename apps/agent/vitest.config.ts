import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["../../vitest.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A machine zone far from the clinics' (Europe/Berlin in the tests): the agent must compute
    // every date in the clinic's zone, and a test that silently leaned on the machine's would fail.
    env: { TZ: "Pacific/Honolulu" },
  },
});
