import { defineConfig } from "vitest/config";
import { sharedTest, withScratchTemplate } from "../../vitest.shared.ts";

// The files that start and kill processes of their own (servers, a throwaway PostgreSQL, the demo
// start) and assert how fast those recover: they run last, one at a time, so that the other files'
// load does not decide their timing (docs/testing.md#speed).
const processFiles = [
  "test/outage.postgres.test.ts",
  "test/workers.postgres.test.ts",
  "test/jobsKill.postgres.test.ts",
  "test/reminders.postgres.test.ts",
  "test/calendarSync.postgres.test.ts",
  "test/demo.test.ts",
];

// The include list is each project's own: a project that extends the root adds to the root's list.
const { include, ...shared } = sharedTest;

export default defineConfig({
  test: {
    ...shared,
    globalSetup: withScratchTemplate,
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          include,
          exclude: processFiles,
          // Three at a time: these files mostly wait (job polling, SMTP and webhook sinks); on
          // PGlite a third of the suite's wall time was CPU (docs/testing.md#speed).
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: processFiles,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
