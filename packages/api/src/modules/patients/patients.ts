import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { type AppointmentStatus, appointmentStatuses, appointments, clinics, type Db, services } from "@clinic/db";
import { notFound } from "../../errors.ts";
import type { OnlineClinic } from "../access/index.ts";
import {
  type AppointmentView,
  cancelAppointment,
  listAppointments,
  rescheduleAppointment,
  selectAppointments,
  toAppointment,
} from "../booking/index.ts";
import { selectServices, serviceOutput, toService } from "../catalog/index.ts";
import { type RateLimit, hitRateLimit } from "../ratelimit/index.ts";

/** A clinic as its booking page shows it (O1). */
export const onlineClinicOutput = z.object({
  id: z.string(),
  name: z.string(),
  timezone: z.string(),
  patient_cancel_cutoff_min: z.number().int(),
});
export const toOnlineClinic = (clinic: OnlineClinic): z.infer<typeof onlineClinicOutput> => ({
  id: clinic.id,
  name: clinic.name,
  timezone: clinic.timezone,
  patient_cancel_cutoff_min: clinic.patientCancelCutoffMin,
});

/** A service as a patient sees it (O2): no settings, only what choosing needs. */
export const onlineServiceOutput = serviceOutput.pick({
  id: true,
  name: true,
  duration_min: true,
  price: true,
  provider_id: true,
  provider_name: true,
  questions: true,
});
export type OnlineServiceView = z.infer<typeof onlineServiceOutput>;

/** The clinic's active services by name. */
export async function onlineServices(db: Db, clinicId: string): Promise<OnlineServiceView[]> {
  const rows = await selectServices(db, clinicId)
    .where(eq(services.isActive, true))
    .orderBy(asc(services.name), asc(services.id));
  return rows.map((row) => {
    const { id, name, duration_min, price, provider_id, provider_name, questions } = toService(row);
    return { id, name, duration_min, price, provider_id, provider_name, questions };
  });
}

export interface MyAppointmentsQuery {
  userId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  status?: readonly AppointmentStatus[] | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The caller's own appointments (booked for them as a patient) in every clinic, by start; never a hold (§13). */
export function listMyAppointments(
  db: Db,
  query: MyAppointmentsQuery,
): Promise<{ appointments: AppointmentView[]; next_cursor: string | null }> {
  const { userId, status, ...filters } = query;
  const shown = (status ?? appointmentStatuses).filter((s) => s !== "held");
  return listAppointments(db, { patientUserId: userId, status: shown, ...filters });
}

/** Where one of the caller's appointments is: its clinic, zone and cutoff; 404 when it is not theirs. */
async function findMine(db: Db, userId: string, id: string) {
  const [row] = await db
    .select({ clinicId: appointments.clinicId, timeZone: clinics.timezone, cutoffMin: clinics.patientCancelCutoffMin })
    .from(appointments)
    .innerJoin(clinics, eq(clinics.id, appointments.clinicId))
    .where(and(eq(appointments.id, id), eq(appointments.patientUserId, userId)));
  if (!row) throw notFound("appointment");
  return row;
}

/** One of the caller's appointments; 404 when it is not theirs (another patient's is not revealed). */
export async function getMyAppointment(db: Db, userId: string, id: string): Promise<AppointmentView> {
  const [row] = await selectAppointments(db).where(
    and(eq(appointments.id, id), eq(appointments.patientUserId, userId)),
  );
  if (!row) throw notFound("appointment");
  return toAppointment(row);
}

/** The patient cancels their appointment; refused within the clinic's cutoff before the start (409). */
export async function cancelMyAppointment(
  db: Db,
  userId: string,
  id: string,
  now: Date,
  rateLimit?: RateLimit,
): Promise<AppointmentView> {
  const mine = await findMine(db, userId, id);
  if (rateLimit) await hitRateLimit(db, mine.clinicId, rateLimit, now);
  return cancelAppointment(
    db,
    mine.clinicId,
    id,
    { userId, may: "mine-as-patient", cutoffMin: mine.cutoffMin, now },
    now,
  );
}

/** The patient moves their appointment to another slot with the same provider, by the clinic's rules and cutoff. */
export async function rescheduleMyAppointment(
  db: Db,
  userId: string,
  id: string,
  change: { start: Date; idempotencyKey?: string | undefined; rateLimit?: RateLimit | undefined },
  now: Date,
) {
  const mine = await findMine(db, userId, id);
  const { appointment } = await rescheduleAppointment(
    db,
    {
      clinicId: mine.clinicId,
      timeZone: mine.timeZone,
      appointmentId: id,
      start: change.start,
      idempotencyKey: change.idempotencyKey,
      rateLimit: change.rateLimit,
    },
    { userId, may: "mine-as-patient", cutoffMin: mine.cutoffMin, now },
    now,
  );
  return appointment;
}
