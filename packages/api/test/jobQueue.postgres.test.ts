import { describe, expect, inject, it } from "vitest";
import { migrate } from "@clinic/db";
import { createScratchDatabase } from "@clinic/db/testing";
import { installJobQueue } from "../src/modules/jobs/index.ts";

const databaseUrl = inject("databaseUrl");

// Several server processes (or test runs) may start together on a new database. pg-boss checks
// whether it is installed before it takes its lock, so the losers fail on what the winner created
// (or deadlock creating one queue); installJobQueue tries again and finds it installed.
describe.skipIf(!databaseUrl)("installing the job queue (PostgreSQL)", () => {
  it("succeeds in three processes starting at once on a new database", async () => {
    const scratch = await createScratchDatabase(databaseUrl, "clinic_jobs");
    try {
      const handles = await Promise.all([1, 2, 3].map(() => scratch.open({ poolMax: 2 })));
      try {
        const [first] = handles;
        if (!first) throw new Error("no handle");
        await migrate(first.db);
        const results = await Promise.allSettled(handles.map((h) => installJobQueue(h)));
        expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok"]);
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    } finally {
      await scratch.drop();
    }
  }, 60_000);
});
