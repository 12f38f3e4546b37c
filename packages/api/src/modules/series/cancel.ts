// Cancelling a series (R3): every occurrence from one on, or all that are not yet past.
import { and, asc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import { appointments, appointmentSeries, type Db } from "@clinic/db";
import { notFound, validationFailed } from "../../errors.ts";
import { type AppointmentActor, cancelAppointment } from "../booking/index.ts";
import { getSeries } from "./read.ts";
import type { SeriesView } from "./view.ts";

/**
 * Cancels the series' booked and pending occurrences that start at `from` or later (`from` must be
 * an occurrence's start), or without `from` all that have not started; each like B5 (its slot
 * freed, `appointment.canceled` recorded; their reminders are no longer due), all in one transaction. The patient
 * gets one message for all of them. Occurrences already canceled, past, or at the desk stay as they
 * are; a second call changes nothing.
 */
export async function cancelSeries(
  db: Db,
  clinicId: string,
  id: string,
  from: Date | undefined,
  actor: AppointmentActor,
  now: Date,
): Promise<SeriesView> {
  return db.transaction(async (tx) => {
    const [series] = await tx
      .select({ id: appointmentSeries.id })
      .from(appointmentSeries)
      .where(and(eq(appointmentSeries.clinicId, clinicId), eq(appointmentSeries.id, id)))
      .for("update");
    if (!series) throw notFound("series");
    const ofSeries = and(eq(appointments.clinicId, clinicId), eq(appointments.seriesId, id));
    if (from !== undefined) {
      const [occurrence] = await tx
        .select({ id: appointments.id })
        .from(appointments)
        .where(and(ofSeries, eq(appointments.startsAt, from)));
      if (!occurrence) throw validationFailed("from", "must be the start of one of the series' occurrences");
    }
    const due = await tx
      .select({ id: appointments.id })
      .from(appointments)
      .where(
        and(
          ofSeries,
          inArray(appointments.status, ["booked", "pending"]),
          gt(appointments.startsAt, now),
          from === undefined ? undefined : gte(appointments.startsAt, from),
        ),
      )
      .orderBy(asc(appointments.startsAt));
    // One message for the series instead of one per occurrence (clinic_plan_message reads this).
    await tx.execute(sql`select set_config('clinic.quiet_messages', 'on', true)`);
    const canceled = [];
    for (const { id: occurrenceId } of due)
      canceled.push(await cancelAppointment(tx, clinicId, occurrenceId, actor, now));
    await tx.execute(sql`select set_config('clinic.quiet_messages', 'off', true)`);
    const [first] = canceled;
    if (first) {
      const data = JSON.stringify({
        ...first,
        series: { id, canceled_starts: canceled.map((a) => a.start.toISOString()) },
      });
      await tx.execute(
        sql`select clinic_plan_message(${clinicId}::uuid, 'canceled', gen_random_uuid(), ${data}::jsonb)`,
      );
    }
    return getSeries(tx, clinicId, id);
  });
}
