// rowBatches (src/client.ts, docs/reports.md#streaming): a statement's rows in order, a batch at a
// time, every row once; and a consumer that stops early gives its connection back (on PostgreSQL
// the cursor holds one of the pool's: with a pool of one, the next statement would wait forever).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { type DbHandle, openDatabase, rowBatches, rowsOf } from "../src/index.ts";
import { openTestDatabase } from "../src/testing.ts";

let handle: DbHandle;
beforeAll(async () => {
  const url = inject("databaseUrl");
  // A pool of one connection on PostgreSQL, so that a cursor left open would block the next statement.
  handle = url
    ? await openDatabase({ url, poolMax: 1 })
    : await openTestDatabase({ url, templatePath: inject("pgliteTemplate") });
});
afterAll(async () => {
  await handle.close();
});

describe("rowBatches", () => {
  it("answers every row once, in the statement's order, in batches of the size asked", async () => {
    const sizes: number[] = [];
    const seen: number[] = [];
    for await (const batch of rowBatches<{ n: number }>(
      handle.db,
      sql`select n from generate_series(1, 2345) as n order by n desc`,
      500,
    )) {
      sizes.push(batch.length);
      seen.push(...batch.map((r) => r.n));
    }
    expect(sizes).toEqual([500, 500, 500, 500, 345]);
    expect(seen).toEqual(Array.from({ length: 2345 }, (_, i) => 2345 - i));
  });

  it("frees the connection when the consumer stops after the first batch", async () => {
    for (let round = 0; round < 3; round++) {
      for await (const batch of rowBatches<{ n: number }>(
        handle.db,
        sql`select n from generate_series(1, 100000) as n`,
        100,
      )) {
        expect(batch).toHaveLength(100);
        break;
      }
    }
    const answer = await handle.db.execute(sql`select 1 as one`);
    expect(answer).toBeDefined();
  });

  it("lets at most all but two of a pool's connections hold cursors; the others wait, statements still run", async (context) => {
    const url = inject("databaseUrl");
    if (!url) return context.skip();
    const four = await openDatabase({ url, poolMax: 4 });
    const open = () =>
      rowBatches<{ n: number }>(four.db, sql`select n from generate_series(1, 100000) as n`, 100)[
        Symbol.asyncIterator
      ]();
    try {
      const first = open();
      const second = open();
      expect((await first.next()).value).toHaveLength(100);
      expect((await second.next()).value).toHaveLength(100);
      const third = open();
      let thirdRead = false;
      const reading = third.next().then((batch) => {
        thirdRead = true;
        return batch;
      });
      // Two cursors hold two of the four connections: a statement still runs, the third cursor waits.
      expect(rowsOf<{ one: number }>(await four.db.execute(sql`select 1 as one`))[0]?.one).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(thirdRead).toBe(false);
      await first.return(undefined);
      expect((await reading).value).toHaveLength(100);
      expect(thirdRead).toBe(true);
      await second.return(undefined);
      await third.return(undefined);
    } finally {
      await four.close();
    }
  });
});
