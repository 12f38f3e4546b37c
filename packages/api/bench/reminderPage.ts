// Times clinic_due_reminders' pages (the reminder sweep's statement, issue 49) on a database:
// 1,000 appointments due now in one clinic, swept a page of 200 at a time.
//   npx tsx bench/reminderPage.ts postgres://…
import { sql } from "drizzle-orm";
import { rowsOf } from "@clinic/db";
import { createScratchDatabase } from "@clinic/db/testing";
import { addService, bookableClinic } from "../testing/index.ts";

const url = process.argv.find((a) => a.startsWith("postgres://"));
if (!url) throw new Error("the URL of a PostgreSQL server, postgres://…");
const scratch = await createScratchDatabase(url, "reminder_page", { migrated: true });
const handle = await scratch.open({ poolMax: 2 });
try {
  const c = await bookableClinic(handle.db);
  const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await handle.db.execute(sql`update clinics set reminder_offsets_min = '{60}' where id = ${c.clinicId}::uuid`);
  const t0 = Date.now();
  await handle.db.execute(sql`
    insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
                              status, patient_name, session_key, reminders_after)
    select ${c.clinicId}::uuid, ${service}::uuid, ${c.provider.id}::uuid, s, s + interval '30 minutes', s,
           s + interval '30 minutes', 'booked', 'Seat ' || g, ${crypto.randomUUID()}::uuid, now() - interval '1 day'
    from generate_series(1, 1000) g,
         lateral (select ${new Date(t0 + 60 * 60_000 - 30_000).toISOString()}::timestamptz + g * interval '1 millisecond' as s) x`);
  for (let page = 0; page < 6; page++) {
    const began = performance.now();
    const [row] = rowsOf<{ answer: { sent: number } }>(
      await handle.db.execute(
        sql`select clinic_due_reminders(${c.clinicId}::uuid, ${JSON.stringify({
          from: new Date(t0 - 120_000).toISOString(),
          now: new Date().toISOString(),
          limit: 200,
        })}::jsonb) as answer`,
      ),
    );
    console.log(
      `page ${String(page)}: ${String(row?.answer.sent)} sent in ${(performance.now() - began).toFixed(0)} ms`,
    );
  }
} finally {
  await handle.close();
  await scratch.drop();
}
