import { defineConfig } from "vitest/config";
import { sharedTest } from "../../vitest.shared.ts";

export default defineConfig({
  test: {
    ...sharedTest,
    // Three at a time: this suite's files mostly wait (job polling, real server processes, SMTP and
    // webhook sinks); on PGlite a third of its wall time was CPU (docs/testing.md#speed).
    maxWorkers: 3,
  },
});
