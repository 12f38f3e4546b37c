import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { availabilityOutput } from "../modules/availability/index.ts";
import { appointmentOutput } from "../modules/booking/index.ts";
import { onlineClinicOutput, onlineServiceOutput, onlineServices, toOnlineClinic } from "../modules/patients/index.ts";
import { bookingErrors, bookingTarget, holdTarget, onlinePatientInput } from "../schemas/booking.ts";
import { uuid } from "../schemas/wire.ts";
import { DomainError, validationFailed } from "../errors.ts";
import {
  bookingWriteProcedure,
  guestBookingProcedure,
  guestBookingWriteProcedure,
  onlineBookingProcedure,
} from "../trpc.ts";
import { availabilityFor, availabilityInput } from "./shared/availability.ts";
import { bookAsGuest, bookFor } from "./shared/booking.ts";

const tags = ["online booking"] as const;
const clinicPath = "/v1/booking/clinics/:clinic_id";

/** O1–O4: a clinic's booking page, for anyone (O4 without a token: a guest's hold, §15); 404 for clinics without online booking. */
export const onlineBookingRouter = {
  clinic: guestBookingProcedure
    .meta({
      rest: {
        method: "GET",
        path: clinicPath,
        summary: "The clinic a patient books with: name, time zone, cancellation cutoff",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid }))
    .output(onlineClinicOutput)
    .query(({ ctx }) => toOnlineClinic(ctx.clinic)),

  services: guestBookingProcedure
    .meta({
      rest: { method: "GET", path: `${clinicPath}/services`, summary: "The clinic's bookable services, by name", tags },
    })
    .input(z.object({ clinic_id: uuid }))
    .output(z.object({ services: z.array(onlineServiceOutput) }))
    .query(async ({ ctx }) => ({ services: await onlineServices(ctx.db, ctx.clinic.id) })),

  availability: guestBookingProcedure
    .meta({
      rest: {
        method: "GET",
        path: `${clinicPath}/availability`,
        summary: "Bookable slots of a service, as GET /v1/availability",
        tags,
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
        fastAvailability: "online",
      },
    })
    .input(availabilityInput)
    .output(availabilityOutput)
    .query(({ ctx, input }) => availabilityFor(ctx, input)),

  book: guestBookingWriteProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${clinicPath}/appointments`,
        status: 201,
        headers: { "idempotency-key": "idempotency_key" },
        summary:
          "Book for yourself (signed in: the e-mail is your token's, at most the clinic's maximum of upcoming appointments). Without a token, a guest gives name and e-mail and gets a hold for the clinic's hold_minutes and an e-mail with a link that confirms it",
        tags,
        errors: [...bookingErrors, "BOOKING_LIMIT", "NO_SHOW_LIMIT", "RATE_LIMITED"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...bookingTarget, patient: onlinePatientInput }))
    .output(appointmentOutput)
    .mutation(async ({ ctx, input }) => {
      const user = ctx.user;
      // A token that was sent but refused is not a guest: it is told why (401).
      if (ctx.authError !== null) throw new DomainError("UNAUTHENTICATED", ctx.authError);
      if (!user) return bookAsGuest(ctx, input);
      if (input.patient.email !== undefined && input.patient.email.toLowerCase() !== user.email.toLowerCase())
        throw validationFailed(
          "patient.email",
          "a signed-in patient books with the e-mail of their account; leave it out",
        );
      return bookFor({ ...ctx, user }, input, {
        patient: {
          name: input.patient.name,
          email: user.email,
          phone_e164: input.patient.phone_e164 ?? user.phoneE164 ?? undefined,
        },
        patientUserId: user.id,
        openBookingLimit: ctx.clinic.maxOpenBookingsPerPatient,
        patientBooking: true,
      });
    }),

  hold: onlineBookingProcedure(bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: `${clinicPath}/holds`,
        status: 201,
        headers: { "idempotency-key": "idempotency_key" },
        summary:
          "Hold a slot for yourself while you enter your details (the clinic's hold_minutes; book it with hold_id)",
        tags,
        errors: [...bookingErrors, "BOOKING_LIMIT", "NO_SHOW_LIMIT", "RATE_LIMITED"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...holdTarget }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      bookFor(ctx, input, {
        patient: { name: "", email: ctx.user.email },
        patientUserId: ctx.user.id,
        openBookingLimit: ctx.clinic.maxOpenBookingsPerPatient,
        patientBooking: true,
        kind: "hold",
      }),
    ),
} satisfies TRPCRouterRecord;
