import { eq, sql } from "drizzle-orm";
import { clinics, migrate, openDatabase, rowsOf } from "@clinic/db";
import { addService, bookableClinic, callerFor, pinnedNow } from "../testing/index.ts";

/**
 * WAL a booking writes (docs/performance.md#what-a-booking-writes): `tsx
 * bench/walPerOffset.ts <DATABASE_URL> [clinics] [offsets]` books 30 appointments in each of
 * `clinics` clinics (default 10; 30 is the booking rate limit's minute) through the procedures,
 * with the clinic's reminder offsets (default `1440`, comma-separated), and prints the bytes of WAL
 * between `pg_current_wal_lsn()` before and after, per booking. The clinics and their schedules are
 * set up before the first reading. The server's WAL is the whole cluster's: run it on a quiet one,
 * or take the least of a few runs. Not a test: it prints, it does not judge.
 */
const [url, clinicsArg, offsetsArg] = process.argv.slice(2);
if (!url) throw new Error("usage: tsx bench/walPerOffset.ts <DATABASE_URL> [clinics] [offsets]");
const clinicCount = Number(clinicsArg ?? 10);
const offsets = (offsetsArg ?? "1440").split(",").map(Number);
const perClinic = 30;

const handle = await openDatabase({ url, poolMax: 2 });
try {
  await migrate(handle.db);
  const setups = [];
  for (let i = 0; i < clinicCount; i++) {
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 15 });
    await handle.db.update(clinics).set({ reminderOffsetsMin: offsets }).where(eq(clinics.id, c.clinicId));
    setups.push({ c, service, staff: callerFor(handle.db, c.staff, { now: pinnedNow }) });
  }
  const lsn = async () =>
    rowsOf<{ lsn: string }>(await handle.db.execute(sql`select pg_current_wal_lsn()::text as lsn`))[0]?.lsn ?? "0/0";
  const before = await lsn();
  for (const { c, service, staff } of setups)
    for (let i = 0; i < perClinic; i++) {
      // Monday 2027-03-15 on, from 09:00 (the clinic's zone is UTC): 20 a day.
      const day = Date.parse("2027-03-15T09:00:00Z") + Math.floor(i / 20) * 86_400_000;
      await staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: new Date(day + (i % 20) * 15 * 60_000).toISOString(),
        patient: { name: "Pat" },
      });
    }
  const after = await lsn();
  const [diff] = rowsOf<{ bytes: number }>(
    await handle.db.execute(sql`select pg_wal_lsn_diff(${after}::pg_lsn, ${before}::pg_lsn)::float8 as bytes`),
  );
  const bookings = clinicCount * perClinic;
  console.log(
    `${String(bookings)} bookings, offsets [${offsets.join(", ")}]: ${String(Math.round((diff?.bytes ?? 0) / bookings))} bytes of WAL a booking`,
  );
} finally {
  await handle.close();
}
