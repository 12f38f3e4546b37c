import { defineConfig } from "vitest/config";
import { databaseFreeFiles, sharedTest, withScratchTemplate } from "../../vitest.shared.ts";

export default defineConfig({
  test: {
    ...sharedTest,
    globalSetup: withScratchTemplate,
    // The pure domain's files (slot engine, time zones, recurrence, iCalendar) run on the embedded target only.
    exclude: databaseFreeFiles(["test/domain/**"]),
  },
});
