// Router-local: a booking by staff (B1) or by a patient on the booking page (O4), which differ only
// in whose patient details they carry.
import type { Context } from "../../context.ts";
import type { AuthUser } from "../../modules/identity/index.ts";
import { type AppointmentView, type BookingRequest, bookAppointment } from "../../modules/booking/index.ts";
import { bookingWritesOf } from "../../trpc.ts";

/** What both booking routes take from their input. */
export interface BookingTargetInput {
  service_id: string;
  start: Date;
  provider_id?: string | undefined;
  notes?: string | undefined;
  idempotency_key?: string | undefined;
  hold_id?: string | undefined;
}

/** Books `input` in the authorised clinic for the patient `who` names; answers the appointment (a replay answers the same one). */
export async function bookFor(
  ctx: Pick<Context, "db" | "now" | "limits"> & { clinic: { id: string; timezone: string }; user: AuthUser },
  input: BookingTargetInput,
  who: Pick<BookingRequest, "patient" | "patientUserId" | "openBookingLimit" | "kind" | "patientBooking">,
): Promise<AppointmentView> {
  const { appointment } = await bookAppointment(
    ctx.db,
    {
      clinicId: ctx.clinic.id,
      timeZone: ctx.clinic.timezone,
      userId: ctx.user.id,
      serviceId: input.service_id,
      start: input.start,
      providerId: input.provider_id,
      notes: input.notes,
      idempotencyKey: input.idempotency_key,
      holdId: input.hold_id,
      rateLimit: bookingWritesOf(ctx),
      ...who,
    },
    ctx.now(),
  );
  return appointment;
}
