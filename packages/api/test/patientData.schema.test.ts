// The schema guard of patient data (§21, docs/patient-data.md#where-it-is): unique values are
// planted as a patient's name, e-mail, phone, notes and answers, and every feature that copies them
// runs (a staff booking with an Idempotency-Key, a move, a series, a guest's booking and its confirm,
// a waitlist entry, webhooks and messages planned). Then every text, JSON, array and composite column of every
// table is searched: each column holding a planted value must be listed in personalData
// (modules/patientData/personalData.ts), which erasure and retention work from. A new table or
// column that copies personal data fails this test until it is listed (and erased).
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinics, rowsOf } from "@clinic/db";
import { type ApiLimits, createContextInner, defaultApiLimits } from "../src/context.ts";
import { manageToken } from "../src/modules/manage/index.ts";
import { isPersonalColumn, personalData } from "../src/modules/patientData/index.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import { addService, addWebhook, bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const createCaller = createCallerFactory(appRouter);
const roomy: ApiLimits = { ...defaultApiLimits, guestWritesPerMinute: 1000 };

/** Every (table, column) of the public schema whose values can hold text. */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  return rowsOf<{ table: string; column: string }>(
    await t.db.execute(sql`
      select c.table_name as "table", c.column_name as "column"
      from information_schema.columns c
      join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name
      where c.table_schema = 'public' and tb.table_type = 'BASE TABLE'
        and c.data_type in ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'USER-DEFINED')
      order by 1, 2`),
  );
}

/** The columns of the clinic's rows (or any row, for tables without clinic_id) holding `value`. */
async function columnsHolding(clinicId: string, value: string): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column } of await textColumns()) {
    const [scoped] = rowsOf<{ n: number }>(
      await t.db.execute(
        sql`select count(*)::int as n from information_schema.columns
            where table_schema = 'public' and table_name = ${table} and column_name = 'clinic_id'`,
      ),
    );
    const where =
      scoped?.n === 1
        ? sql`x.clinic_id = ${clinicId}::uuid and strpos(lower(x.${sql.identifier(column)}::text), ${value.toLowerCase()}) > 0`
        : sql`strpos(lower(x.${sql.identifier(column)}::text), ${value.toLowerCase()}) > 0`;
    const [row] = rowsOf<{ n: number }>(
      await t.db.execute(sql`select count(*)::int as n from ${sql.identifier(table)} x where ${where}`),
    );
    if ((row?.n ?? 0) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

describe("the personal-data list (§21)", () => {
  it("names every column that a patient's planted values reach", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const planted = {
      name: `Quinn Guard ${tag}`,
      email: `quinn.${tag}@example.test`,
      phone: `+4930${tag
        .replace(/[^0-9]/g, "7")
        .padEnd(8, "7")
        .slice(0, 8)}`,
      notes: `guard-note-${tag}`,
      answer: `guard-answer-${tag}`,
    };
    const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    await t.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: service,
      questions: [{ key: "why", label: "Why", type: "text" }],
    });
    await addWebhook(t.db, c.clinicId, { eventTypes: ["*"] });
    const desk = callerFor(t.db, c.staff, { now: pinnedNow });
    const patient = { name: planted.name, email: planted.email, phone_e164: planted.phone };
    const extra = { notes: planted.notes, answers: { why: planted.answer } };
    const booked = await desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T09:00:00Z"),
      patient,
      idempotency_key: `guard-${tag}`,
      ...extra,
    });
    await desk.appointments.reschedule({
      clinic_id: c.clinicId,
      id: booked.id,
      start: new Date("2027-03-15T10:00:00Z"),
    });
    await desk.series.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-16T09:00:00Z"),
      rrule: "FREQ=WEEKLY;COUNT=2",
      patient,
      ...extra,
    });
    const guest = createCaller(
      createContextInner({ db: t.db, user: null, clientAddress: "198.51.100.77", now: pinnedNow, limits: roomy }),
    );
    const held = await guest.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-17T09:00:00Z"),
      patient,
      ...extra,
    });
    const [key] = await t.db
      .select({ key: appointments.manageKey })
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, held.id)));
    await guest.manage.confirm({ token: manageToken(c.clinicId, held.id, key?.key ?? "") });
    await desk.waitlist.add({
      clinic_id: c.clinicId,
      service_id: service,
      from_date: "2027-03-18",
      to_date: "2027-03-19",
      patient,
    });
    await desk.appointments.cancel({ clinic_id: c.clinicId, id: booked.id });

    const unlisted: string[] = [];
    const reached = new Set<string>();
    for (const [what, value] of Object.entries(planted)) {
      for (const column of await columnsHolding(c.clinicId, value)) {
        reached.add(column);
        const [table = "", name = ""] = column.split(".");
        if (!isPersonalColumn(table, name)) unlisted.push(`${column} holds the planted ${what}`);
      }
    }
    // The positive control: the search finds the patient's own columns and their copies.
    for (const column of [
      "appointments.patient_name",
      "appointments.answers",
      "events.data",
      "events.appointment",
      "messages.to",
    ])
      expect([...reached], column).toContain(column);
    expect(unlisted, "columns with personal data missing from personalData.ts").toEqual([]);
    // And the list names no column that does not exist.
    const existing = new Set((await textColumns()).map((col) => `${col.table}.${col.column}`));
    const uuids = ["appointments.patient_user_id", "clinic_patients.user_id"];
    for (const entry of personalData) {
      const name = `${entry.table}.${entry.column}`;
      if (!uuids.includes(name)) expect(existing, name).toContain(name);
    }
  });
});
