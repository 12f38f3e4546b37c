// rowBatches (src/client.ts, docs/reports.md#streaming): a statement's rows in order, a batch at a
// time, every row once; and a consumer that stops early gives its connection back (on PostgreSQL
// the cursor holds one of the pool's: with a pool of one, the next statement would wait forever).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { type DbHandle, openDatabase, rowBatches } from "../src/index.ts";
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
});
