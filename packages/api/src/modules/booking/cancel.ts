// Cancelling an appointment: its slot freed, the change recorded (its reminders are no longer due).
import { and, eq, sql } from "drizzle-orm";
import { appointments, type Db } from "@clinic/db";
import { invalidateAvailability } from "../availability/index.ts";
import { DomainError } from "../../errors.ts";
import { recordChanges } from "../events/index.ts";
import {
  type AppointmentActor,
  type AppointmentView,
  eventAppointment,
  getAppointment,
  lockAppointment,
} from "./appointments.ts";
import { syncProviderBusy } from "./busy.ts";

/**
 * Cancels a booked or pending appointment (idempotent) and frees its slot. Once the patient has
 * arrived, or not come, the appointment is the desk's (T1); a hold is released (T4), not canceled.
 */
export async function cancelAppointment(
  db: Db,
  clinicId: string,
  id: string,
  actor: AppointmentActor,
  now: Date,
): Promise<AppointmentView> {
  return db.transaction(async (tx) => {
    const row = await lockAppointment(tx, clinicId, id, actor);
    if (row.status === "canceled") return getAppointment(tx, clinicId, id);
    if (row.status !== "booked" && row.status !== "pending") {
      throw new DomainError(
        "INVALID_TRANSITION",
        row.status === "held"
          ? "a hold is released (DELETE /v1/appointments/holds/{id}), not canceled"
          : `an appointment that is ${row.status} cannot be canceled`,
        { extra: { current_status: row.status } },
      );
    }
    await tx
      .update(appointments)
      .set({
        status: "canceled",
        canceledAt: sql`now()`,
        statusHistory: sql`${appointments.statusHistory} || jsonb_build_array(clinic_status_entry('canceled', ${now.toISOString()}::timestamptz, ${actor.userId}::uuid, null))`,
      })
      .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)));
    await syncProviderBusy(tx, clinicId, id, [row.providerId], now);
    await invalidateAvailability(tx, clinicId, [row.providerId], { schedule: false });
    const canceled = await getAppointment(tx, clinicId, id);
    await recordChanges(tx, clinicId, [{ type: "appointment.canceled", data: eventAppointment(canceled) }]);
    return canceled;
  });
}
