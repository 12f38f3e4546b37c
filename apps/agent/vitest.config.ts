import { defineConfig } from "vitest/config";
import { sharedTest } from "../../vitest.shared.ts";

export default defineConfig({
  test: {
    ...sharedTest,
    // A machine zone far from the clinics' (Europe/Berlin in the tests): the agent must compute
    // every date in the clinic's zone, and a test that silently leaned on the machine's would fail.
    env: { TZ: "Pacific/Honolulu" },
  },
});
