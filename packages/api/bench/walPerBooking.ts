// WAL per booking, its webhook delivery included (issue 49, docs/performance.md): books N
// appointments one after the other in one clinic with a webhook whose receiver answers 204, while
// this process's workers deliver them, and measures pg_current_wal_lsn() before the first booking
// and after the last delivery is recorded. Use a PostgreSQL server of its own: the WAL position is
// the server's, so another database's writes would count too.
//
//   npx tsx bench/walPerBooking.ts postgres://… [N] [--no-webhook] [--statements] [--records]
// --statements: also the statements' time a booking over the measured range, from pg_stat_statements
// (the server must load it, with pg_stat_statements.track = all for the statements inside functions).
// --records: the measured range's WAL by record type a booking (pg_walinspect's pg_get_wal_stats; the
// extension is created in the scratch database), as docs/performance.md#what-a-booking-writes lists it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { rowsOf } from "@clinic/db";
import { createScratchDatabase } from "@clinic/db/testing";
import { createContextInner, defaultApiLimits } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import { startWorkers } from "../src/workers.ts";
import { addService, addWebhook, bookableClinic, pinnedNow } from "../testing/index.ts";

const url = process.argv.find((a) => a.startsWith("postgres://"));
const count = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 500);
const webhook = !process.argv.includes("--no-webhook");
const statements = process.argv.includes("--statements");
const records = process.argv.includes("--records");
if (!url) throw new Error("the URL of a PostgreSQL server of its own, postgres://…");

const received = new Set<string>();
const receiver = createServer((req, res) => {
  received.add(String(req.headers["webhook-id"]));
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const scratch = await createScratchDatabase(url, "wal_per_booking", { migrated: true });
const handle = await scratch.open({ poolMax: 4 });
const workers = startWorkers(handle, { allowPrivate: true, retryDelaysS: [5], timeoutMs: 5_000 });
try {
  const c = await bookableClinic(handle.db, {
    hours: { weekdays: [1, 2, 3, 4, 5, 6, 7], opens: "00:00", closes: "23:45" },
  });
  const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 15 });
  if (webhook)
    await addWebhook(handle.db, c.clinicId, {
      url: `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook`,
    });
  // The per-user booking limit lifted (its counter row is still written, as on every booking).
  const staff = createCallerFactory(appRouter)(
    createContextInner({
      db: handle.db,
      user: c.staff,
      now: pinnedNow,
      limits: { ...defaultApiLimits, bookingWritesPerMinute: 1_000_000 },
    }),
  );
  let next = 0;
  const book = () => {
    // 95 quarters a day (the last, 23:45, would end after closing).
    const i = next++;
    const at = Date.parse("2027-04-01T00:00:00Z") + Math.floor(i / 95) * 86_400_000 + (i % 95) * 15 * 60_000;
    return staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date(at).toISOString(),
      patient: { name: "Pat" },
    });
  };
  const lsn = async () =>
    rowsOf<{ lsn: string }>(await handle.db.execute(sql`select pg_current_wal_lsn()::text as lsn`))[0]?.lsn ?? "";
  const drained = async (n: number) => {
    for (const deadline = Date.now() + 60_000; webhook && received.size < n;) {
      if (Date.now() > deadline) throw new Error(`delivered ${String(received.size)} of ${String(n)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The last outcomes are written after the receiver answered.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  };
  // Warm-up: the pages touched first after a checkpoint are written whole once.
  for (let i = 0; i < 50; i++) await book();
  await drained(50);
  await handle.db.execute(sql`checkpoint`);
  for (let i = 0; i < 50; i++) await book();
  await drained(100);
  if (statements) await handle.db.execute(sql`select pg_stat_statements_reset()`);
  const start = await lsn();
  const began = Date.now();
  for (let i = 0; i < count; i++) await book();
  await drained(100 + count);
  const end = await lsn();
  const [diff] = rowsOf<{ bytes: number }>(
    await handle.db.execute(sql`select pg_wal_lsn_diff(${end}::pg_lsn, ${start}::pg_lsn)::float8 as bytes`),
  );
  const bytes = diff?.bytes ?? 0;
  console.log(
    `${String(count)} bookings${webhook ? " with a webhook, delivered" : ""}: ${String(Math.round(bytes))} bytes of WAL, ${(bytes / count).toFixed(0)} B a booking (${String(Date.now() - began)} ms)`,
  );
  if (records) {
    await handle.db.execute(sql`create extension if not exists pg_walinspect`);
    const stats = rowsOf<{ record_type: string; count: number; record_size: number; fpi_size: number }>(
      await handle.db.execute(sql`
        select "resource_manager/record_type" as record_type, count::int as count,
               record_size::float8 as record_size, fpi_size::float8 as fpi_size
        from pg_get_wal_stats(${start}::pg_lsn, ${end}::pg_lsn, true) where count > 0
        order by record_size + fpi_size desc`),
    );
    // Which relations the records of the main kinds touch.
    const last = rowsOf<{ record_type: string; relation: string; n: number }>(
      await handle.db.execute(sql`
        select resource_manager || '/' || record_type as record_type,
               coalesce((select c.relname from pg_class c
                         where c.relfilenode = (regexp_match(block_ref, 'rel [0-9]+/[0-9]+/([0-9]+)'))[1]::oid), block_ref) as relation,
               count(*)::int as n
        from pg_get_wal_records_info(${start}::pg_lsn, ${end}::pg_lsn)
        where resource_manager || '/' || record_type in ('Heap/LOCK', 'Heap/INSERT', 'Btree/INSERT_LEAF', 'Heap/HOT_UPDATE', 'Gist/PAGE_UPDATE')
        group by 1, 2 order by 1, 3 desc`),
    );
    for (const row of last)
      console.log(`  ${row.record_type.padEnd(20)} ${row.relation.padEnd(40)} ${(row.n / count).toFixed(2)} a booking`);
    for (const row of stats)
      console.log(
        `  ${row.record_type.padEnd(28)} ${(row.count / count).toFixed(2).padStart(6)} a booking ${(row.record_size / count).toFixed(0).padStart(6)} B${row.fpi_size > 0 ? ` + ${(row.fpi_size / count).toFixed(0)} B full pages` : ""}`,
      );
  }
  if (statements) {
    const top = rowsOf<{ toplevel: boolean; calls: number; ms: number; query: string }>(
      await handle.db.execute(sql`
        select toplevel, calls::int as calls, total_exec_time::float8 as ms, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 90) as query
        from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
        order by toplevel desc, total_exec_time desc limit 25`),
    );
    for (const row of top)
      console.log(
        `${row.toplevel ? "top " : "    "} ${(row.ms / count).toFixed(3).padStart(7)} ms/booking ${(row.calls / count).toFixed(2).padStart(5)} calls/booking  ${row.query}`,
      );
  }
} finally {
  await workers.stop();
  await handle.close();
  await scratch.drop();
  receiver.close();
}
