// The gap-free proof: many transactions record events at once (some roll back), while one reader
// pages the feed all the while; the reader sees every committed event exactly once, in order.
import { sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { events } from "@clinic/db";
import { listEvents, recordChanges } from "../src/modules/events/index.ts";
import { createClinic, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Rollback extends Error {}

describe.skipIf(!inject("databaseUrl"))("the event feed under concurrency (PostgreSQL)", () => {
  it("loses nothing and repeats nothing while 400 transactions commit or roll back in parallel", async () => {
    const clinicId = await createClinic(t.db);
    let writing = true;
    const seen: { id: string; seq: number }[] = [];
    const reader = (async () => {
      let after: string | undefined;
      const page = async () => {
        const result = await listEvents(t.db, { clinicId, after, limit: 7 });
        after = result.next_cursor;
        return result.events;
      };
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the writers below, after awaits
      while (writing) {
        for (const e of await page()) seen.push({ id: e.id, seq: Number(e.data.n) });
        await sleep(1);
      }
      // Drain what committed after the last page.
      for (let batch = await page(); batch.length > 0; batch = await page())
        for (const e of batch) seen.push({ id: e.id, seq: Number(e.data.n) });
    })();
    let n = 0;
    const writer = async (k: number) => {
      try {
        await t.db.transaction(async (tx) => {
          // Some work before and after recording, so transactions interleave and commit out of start order.
          await sleep(k % 5);
          await recordChanges(
            tx,
            clinicId,
            Array.from({ length: 1 + (k % 3) }, () => ({ type: "service.updated" as const, data: { n: n++, k } })),
          );
          await tx.execute(sql`select pg_sleep(${(k % 4) / 1000})`);
          if (k % 7 === 0) throw new Rollback();
        });
      } catch (error) {
        if (!(error instanceof Rollback)) throw error;
      }
    };
    // 40 at a time, 400 in all.
    for (let round = 0; round < 10; round++)
      await Promise.all(Array.from({ length: 40 }, (_, i) => writer(round * 40 + i)));
    writing = false;
    await reader;

    const committed = await t.db
      .select({ id: events.id, seq: events.seq })
      .from(events)
      .where(sql`${events.clinicId} = ${clinicId}`)
      .orderBy(events.seq);
    expect(committed.length).toBeGreaterThan(300);
    // Exactly once, every committed event, none of the rolled-back ones.
    expect(seen.map((e) => e.id)).toEqual(committed.map((e) => e.id));
    // Numbers are contiguous: rolled-back transactions leave no holes, so none could be skipped.
    expect(committed.map((e) => e.seq)).toEqual(committed.map((_, i) => i + 1));
  }, 120_000);
});
