// Cancelling an appointment: its slot freed, its reminders dropped, the change recorded.
import { and, eq, sql } from "drizzle-orm";
import { appointments, type Db } from "@clinic/db";
import { invalidateAvailability } from "../availability/index.ts";
import { recordChanges } from "../events/index.ts";
import { type AppointmentActor, type AppointmentView, getAppointment, lockAppointment } from "./appointments.ts";
import { dropReminders } from "./reminders.ts";

/** Cancels an appointment (idempotent) and frees its slot. */
export async function cancelAppointment(
  db: Db,
  clinicId: string,
  id: string,
  actor: AppointmentActor,
): Promise<AppointmentView> {
  return db.transaction(async (tx) => {
    const row = await lockAppointment(tx, clinicId, id, actor);
    if (row.status === "canceled") return getAppointment(tx, clinicId, id);
    await tx
      .update(appointments)
      .set({ status: "canceled", canceledAt: sql`now()` })
      .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)));
    await invalidateAvailability(tx, clinicId, [row.providerId], { schedule: false });
    await dropReminders(tx, clinicId, id);
    const canceled = await getAppointment(tx, clinicId, id);
    await recordChanges(tx, clinicId, [{ type: "appointment.canceled", data: canceled }]);
    return canceled;
  });
}
