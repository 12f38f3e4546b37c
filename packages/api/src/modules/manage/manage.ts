// L1–L4: what a manage link's holder may see and do (§15, docs/manage-links.md). The token is the
// only credential: it names one appointment, and everything here is about that appointment only.
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { type Db, appointments, clinicLocales, clinics } from "@clinic/db";
import { DomainError } from "../../errors.ts";
import {
  type AppointmentActor,
  type AppointmentView,
  appointmentOutput,
  bookAppointment,
  cancelAppointment,
  releaseHold,
  rescheduleAppointment,
  selectAppointments,
  toAppointment,
} from "../booking/index.ts";
import { type RateLimit, hitRateLimit } from "../ratelimit/index.ts";
import { declineOffer, liveOfferOf } from "../waitlist/index.ts";
import { resolveManageToken } from "./token.ts";

export const manageActions = ["confirm", "cancel", "reschedule", "decline"] as const;
export type ManageAction = (typeof manageActions)[number];

/** L1's answer: the appointment, its clinic, and what the link may do now. */
export const managedOutput = z.object({
  appointment: appointmentOutput,
  clinic: z.object({
    name: z.string(),
    timezone: z.string(),
    patient_cancel_cutoff_min: z.number().int(),
    locale: z.enum(clinicLocales),
  }),
  /** The appointment is a waitlist offer (L2 accepts it, L5 passes it on). */
  waitlist_offer: z.boolean(),
  actions: z.array(z.enum(manageActions)),
});
export type ManagedView = z.infer<typeof managedOutput>;

interface Managed {
  view: ManagedView;
  clinicId: string;
  timeZone: string;
  cutoffMin: number;
  patientUserId: string | null;
  bookedByUserId: string | null;
  heldUntil: Date | null;
}

/** What the link may do at `now`: confirm or decline a live hold; cancel or move before the cutoff. */
function actionsOf(
  appointment: AppointmentView,
  cutoffMin: number,
  offer: boolean,
  guestHold: boolean,
  now: Date,
): ManageAction[] {
  if (appointment.status === "held") {
    const live = appointment.held_until !== null && appointment.held_until.getTime() > now.getTime();
    return live && (offer || guestHold) ? ["confirm", "decline"] : [];
  }
  if (appointment.status !== "booked" && appointment.status !== "pending") return [];
  const beforeCutoff = appointment.start.getTime() - now.getTime() >= cutoffMin * 60_000;
  return beforeCutoff ? ["cancel", "reschedule"] : [];
}

/** L1: the appointment of a live token, with its clinic and actions; 404 for a bad or dead token. */
export async function readManaged(db: Db, token: string, now: Date): Promise<Managed> {
  const { clinicId, appointmentId } = await resolveManageToken(db, token, now);
  const [row] = await selectAppointments(db).where(
    and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId)),
  );
  const [clinic] = await db
    .select({
      name: clinics.name,
      timezone: clinics.timezone,
      cutoffMin: clinics.patientCancelCutoffMin,
      locale: clinics.locale,
    })
    .from(clinics)
    .where(eq(clinics.id, clinicId));
  if (!row || !clinic) throw new DomainError("NOT_FOUND", "manage link not found");
  const offer = await liveOfferOf(db, clinicId, appointmentId, now);
  const appointment = toAppointment(row);
  // A guest's hold: made without an account (the booking page's guest form, §15 O4).
  const guestHold = row.status === "held" && row.bookedByUserId === null;
  return {
    view: {
      appointment,
      clinic: {
        name: clinic.name,
        timezone: clinic.timezone,
        patient_cancel_cutoff_min: clinic.cutoffMin,
        locale: clinic.locale,
      },
      waitlist_offer: offer !== null,
      actions: actionsOf(appointment, clinic.cutoffMin, offer !== null, guestHold, now),
    },
    clinicId,
    timeZone: clinic.timezone,
    cutoffMin: clinic.cutoffMin,
    patientUserId: row.patientUserId,
    bookedByUserId: row.bookedByUserId,
    heldUntil: row.heldUntil,
  };
}

const refused = (action: ManageAction, appointment: AppointmentView) =>
  new DomainError(
    "INVALID_TRANSITION",
    appointment.status === "held"
      ? `this hold cannot be ${action === "cancel" ? "canceled (decline it)" : "moved (confirm it first)"}`
      : `an appointment that is ${appointment.status} cannot be ${action === "confirm" ? "confirmed again" : action === "decline" ? "declined" : `${action}ed`} by its link`,
    { extra: { current_status: appointment.status } },
  );

/** The link's holder acts as the appointment's patient (their account, when they have one). */
const actorOf = (managed: Managed, now: Date): AppointmentActor => ({
  userId: managed.patientUserId,
  may: "any",
  cutoffMin: managed.cutoffMin,
  now,
});

/**
 * L2: a guest's hold or a waitlist offer becomes booked (pending when the service requires the
 * clinic's confirmation, §13), keeping its id, time and provider; 409 HOLD_EXPIRED after the hold
 * ran out, 409 INVALID_TRANSITION for anything else (a second accept included).
 */
export async function confirmManaged(db: Db, token: string, now: Date, rateLimit: RateLimit): Promise<AppointmentView> {
  const managed = await readManaged(db, token, now);
  const { appointment } = managed.view;
  if (appointment.status !== "held") throw refused("confirm", appointment);
  try {
    const booked = await bookAppointment(
      db,
      {
        clinicId: managed.clinicId,
        timeZone: managed.timeZone,
        userId: managed.bookedByUserId,
        serviceId: appointment.service_id,
        start: appointment.start,
        providerId: appointment.provider_id,
        holdId: appointment.id,
        keepHeldAnswers: true,
        patient: {
          name: appointment.patient.name,
          email: appointment.patient.email ?? undefined,
          phone_e164: appointment.patient.phone_e164 ?? undefined,
        },
        notes: appointment.notes ?? undefined,
        patientUserId: managed.patientUserId ?? undefined,
        patientBooking: true,
        rateLimit,
      },
      now,
    );
    return booked.appointment;
  } catch (error) {
    // Two accepts at once: the second finds the hold already booked. (A hold that is gone, because
    // the waitlist took back a lapsed offer, stays 404: the link is dead.)
    if (error instanceof DomainError && error.domainCode === "NOT_FOUND") {
      const [current] = await db
        .select({ status: appointments.status })
        .from(appointments)
        .where(and(eq(appointments.clinicId, managed.clinicId), eq(appointments.id, appointment.id)));
      if (current && current.status !== "held") throw refused("confirm", { ...appointment, status: current.status });
    }
    throw error;
  }
}

/** L3: cancels the appointment as its patient would (U3): until the clinic's cutoff before the start. */
export async function cancelManaged(db: Db, token: string, now: Date, rateLimit: RateLimit): Promise<AppointmentView> {
  const managed = await readManaged(db, token, now);
  const { appointment } = managed.view;
  if (appointment.status !== "booked" && appointment.status !== "pending") throw refused("cancel", appointment);
  await hitRateLimit(db, managed.clinicId, rateLimit, now);
  return cancelAppointment(db, managed.clinicId, appointment.id, actorOf(managed, now), now);
}

/** L4: moves the appointment as its patient would (U4): a free slot of its service, same provider, before the cutoff. */
export async function rescheduleManaged(
  db: Db,
  token: string,
  change: { start: Date; idempotencyKey?: string | undefined },
  now: Date,
  rateLimit: RateLimit,
): Promise<AppointmentView> {
  const managed = await readManaged(db, token, now);
  const { appointment } = managed.view;
  if (appointment.status !== "booked" && appointment.status !== "pending") throw refused("reschedule", appointment);
  const { appointment: moved } = await rescheduleAppointment(
    db,
    {
      clinicId: managed.clinicId,
      timeZone: managed.timeZone,
      appointmentId: appointment.id,
      start: change.start,
      // A retry's key is scoped to the appointment's patient; a guest's move is not replayable.
      idempotencyKey: managed.patientUserId ? change.idempotencyKey : undefined,
      rateLimit,
    },
    actorOf(managed, now),
    now,
  );
  return moved;
}

/**
 * L5: a waitlist offer goes back to the line (the waitlist puts its entry back to waiting, and the
 * next run of the matcher offers the slot to the next entry); a guest's hold is released (its time
 * is free again at once).
 */
export async function declineManaged(
  db: Db,
  token: string,
  now: Date,
  rateLimit: RateLimit,
): Promise<{ declined: true }> {
  const managed = await readManaged(db, token, now);
  const { appointment } = managed.view;
  if (!managed.view.actions.includes("decline")) throw refused("decline", appointment);
  await hitRateLimit(db, managed.clinicId, rateLimit, now);
  if (managed.view.waitlist_offer) await declineOffer(db, managed.clinicId, appointment.id, now);
  else
    await releaseHold(db, {
      clinicId: managed.clinicId,
      id: appointment.id,
      userId: managed.bookedByUserId,
      isAdmin: true,
    });
  return { declined: true };
}
