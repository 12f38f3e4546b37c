// Appointment reminders: scheduled jobs that record appointment.reminder events (docs/events.md#reminders).
import { and, eq } from "drizzle-orm";
import { appointmentReminders, appointments, type Db } from "@clinic/db";
import { eventAppointment, getAppointment } from "./appointments.ts";
import { recordChanges } from "../events/index.ts";
import { cancelJobs } from "../jobs/index.ts";

/** What a reminder job carries. */
export interface ReminderJob {
  clinicId: string;
  appointmentId: string;
  offsetMin: number;
  /** The start the reminder was planned for (ISO); a moved appointment's old reminders do nothing. */
  startsAt: string;
}

/** Drops an appointment's planned reminders (cancel, reschedule): their jobs are cancelled. */
export async function dropReminders(tx: Db, clinicId: string, appointmentId: string): Promise<void> {
  const planned = await tx
    .update(appointmentReminders)
    .set({ status: "dropped" })
    .where(
      and(
        eq(appointmentReminders.clinicId, clinicId),
        eq(appointmentReminders.appointmentId, appointmentId),
        eq(appointmentReminders.status, "planned"),
      ),
    )
    .returning({ jobId: appointmentReminders.jobId });
  await cancelJobs(
    tx,
    clinicId,
    planned.map((r) => r.jobId),
  );
}

/**
 * Records an `appointment.reminder` event for a due reminder, exactly once: the reminder's row is
 * locked and marked sent in the event's transaction, so a second run of the job (another process,
 * a retry after a crash) finds it sent and does nothing. A reminder of a canceled or moved
 * appointment records nothing.
 */
export async function runReminder(db: Db, job: ReminderJob): Promise<void> {
  await db.transaction(async (tx) => {
    const startsAt = new Date(job.startsAt);
    const key = and(
      eq(appointmentReminders.clinicId, job.clinicId),
      eq(appointmentReminders.appointmentId, job.appointmentId),
      eq(appointmentReminders.offsetMin, job.offsetMin),
      eq(appointmentReminders.startsAt, startsAt),
    );
    const [reminder] = await tx
      .select({ status: appointmentReminders.status })
      .from(appointmentReminders)
      .where(key)
      .for("update");
    if (reminder?.status !== "planned") return;
    const [current] = await tx
      .select({ status: appointments.status, startsAt: appointments.startsAt })
      .from(appointments)
      .where(and(eq(appointments.clinicId, job.clinicId), eq(appointments.id, job.appointmentId)));
    const due = current?.status === "booked" && current.startsAt.getTime() === startsAt.getTime();
    if (due) {
      const appointment = await getAppointment(tx, job.clinicId, job.appointmentId);
      await recordChanges(tx, job.clinicId, [
        { type: "appointment.reminder", data: { ...eventAppointment(appointment), offset_min: job.offsetMin } },
      ]);
    }
    await tx
      .update(appointmentReminders)
      .set({ status: due ? "sent" : "dropped" })
      .where(key);
  });
}
