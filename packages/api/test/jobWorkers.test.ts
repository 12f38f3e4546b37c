import { describe, expect, inject, it } from "vitest";
import { clinics, migrate } from "@clinic/db";
import { createScratchDatabase } from "@clinic/db/testing";
import { JobWorkers, dispatchOutbox, enqueue, installJobQueue, queueNames } from "../src/modules/jobs/index.ts";

// A database of its own (in-memory PGlite without DATABASE_URL): no other file's workers may take
// these jobs and run their own handler on them.
describe("job workers", () => {
  it("fetch the next batch at once after a full one, not after the polling interval", async () => {
    const scratch = await createScratchDatabase(inject("databaseUrl"), "clinic_workers");
    try {
      const handle = await scratch.open({ poolMax: 4 });
      try {
        await migrate(handle.db);
        await installJobQueue(handle);
        const clinicId = crypto.randomUUID();
        await handle.db.insert(clinics).values({ id: clinicId, name: "Batches", timezone: "Europe/Berlin" });
        const jobs = 65; // three full batches of 20 and a partial one
        await handle.db.transaction(async (tx) => {
          for (let i = 0; i < jobs; i++) await enqueue(tx, clinicId, queueNames.messageSend, { i });
        });
        expect(await dispatchOutbox(handle.db)).toBe(jobs);
        // A polling interval far longer than the test may take: only fetching again at once after
        // a full batch can run more than the first 20 jobs within it.
        const workers = new JobWorkers(handle, { pollingIntervalSeconds: 600 });
        const seen = new Set<number>();
        try {
          await workers.work<{ i: number }>(queueNames.messageSend, (job) => {
            seen.add(job.data.i);
            return Promise.resolve();
          });
          for (let waited = 0; seen.size < jobs && waited < 30_000; waited += 50)
            await new Promise((resolve) => setTimeout(resolve, 50));
        } finally {
          await workers.stop();
        }
        expect(seen.size).toBe(jobs);
      } finally {
        await handle.close();
      }
    } finally {
      await scratch.drop();
    }
  }, 90_000);
});
