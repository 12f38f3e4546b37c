// Router-local: a booking by staff (B1) or by a patient on the booking page (O4), which differ only
// in whose patient details they carry.
import type { Context } from "../../context.ts";
import type { ClinicGate } from "../../modules/access/index.ts";
import type { AuthUser } from "../../modules/identity/index.ts";
import { type AppointmentView, type BookingRequest, bookAppointment } from "../../modules/booking/index.ts";
import { validationFailed } from "../../errors.ts";
import { bookingWritesOf, guestWritesOf } from "../../trpc.ts";

/** What both booking routes take from their input. */
export interface BookingTargetInput {
  service_id: string;
  start: Date;
  provider_id?: string | undefined;
  notes?: string | undefined;
  idempotency_key?: string | undefined;
  hold_id?: string | undefined;
  answers?: Record<string, unknown> | undefined;
}

/**
 * Books `input` in the clinic for the patient `who` names; answers the appointment (a replay
 * answers the same one). The clinic is authorised already (`clinic`) or by the booking's read (`gate`, B1).
 */
export async function bookFor(
  ctx: Pick<Context, "db" | "now" | "limits"> & { user: AuthUser } & (
      { clinic: { id: string; timezone: string } } | { gate: ClinicGate }
    ),
  input: BookingTargetInput,
  who: Pick<BookingRequest, "patient" | "patientUserId" | "openBookingLimit" | "kind" | "patientBooking">,
): Promise<AppointmentView> {
  const where =
    "gate" in ctx
      ? { clinicId: ctx.gate.clinicId, timeZone: await ctx.gate.zone(), gate: ctx.gate }
      : { clinicId: ctx.clinic.id, timeZone: ctx.clinic.timezone };
  const { appointment } = await bookAppointment(
    ctx.db,
    {
      ...where,
      userId: ctx.user.id,
      serviceId: input.service_id,
      start: input.start,
      providerId: input.provider_id,
      notes: input.notes,
      idempotencyKey: input.idempotency_key,
      holdId: input.hold_id,
      answers: input.answers,
      rateLimit: bookingWritesOf(ctx),
      ...who,
    },
    ctx.now(),
  );
  return appointment;
}

/**
 * A guest's booking (O4 without a token, §15): a hold for the clinic's hold_minutes in the
 * patient's name and e-mail, with the confirm request e-mailed to them (its link books it). No
 * account is made. Counted against the client address's guest-write limit (429 RATE_LIMITED); the
 * clinic's unconfirmed guest holds are limited per address, per e-mail and in all (409
 * BOOKING_LIMIT, 429 RATE_LIMITED; docs/manage-links.md#guest-holds).
 */
export async function bookAsGuest(
  ctx: Pick<Context, "db" | "now" | "limits" | "clientKey"> & {
    clinic: { id: string; timezone: string };
  },
  input: BookingTargetInput & {
    patient: { name: string; email?: string | undefined; phone_e164?: string | undefined };
  },
): Promise<AppointmentView> {
  if (input.patient.email === undefined)
    throw validationFailed(
      "patient.email",
      "a guest gives an e-mail address: the link that confirms the booking goes there",
    );
  if (input.hold_id !== undefined)
    throw validationFailed("hold_id", "a guest's booking is itself a hold; it is confirmed by the e-mailed link");
  if (input.idempotency_key !== undefined)
    throw validationFailed(
      "idempotency_key",
      "Idempotency-Key is for signed-in callers; a guest's retry gets SLOT_UNAVAILABLE while the first hold keeps the time",
    );
  const email = input.patient.email;
  const { appointment } = await bookAppointment(
    ctx.db,
    {
      clinicId: ctx.clinic.id,
      timeZone: ctx.clinic.timezone,
      userId: null,
      serviceId: input.service_id,
      start: input.start,
      providerId: input.provider_id,
      notes: input.notes,
      answers: input.answers,
      patient: { name: input.patient.name, email, phone_e164: input.patient.phone_e164 },
      patientBooking: true,
      kind: "hold",
      message: "guest_confirm",
      rateLimit: guestWritesOf(ctx),
      guestAddress: ctx.clientKey(),
    },
    ctx.now(),
  );
  return appointment;
}
