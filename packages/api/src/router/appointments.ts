import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { mayHandleAnyAppointment } from "../modules/access/index.ts";
import { appointmentStatuses } from "@clinic/db";
import {
  appointmentOutput,
  cancelAppointment,
  changeAppointmentStatus,
  getAppointment,
  listAppointments,
  releaseHold,
  rescheduleAppointment,
} from "../modules/booking/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { ifMatch, instantInput, uuid } from "../schemas/wire.ts";
import {
  bookingErrors,
  bookingTarget,
  holdTarget,
  idempotencyKey,
  patientInput,
  statusSet,
} from "../schemas/booking.ts";
import {
  bookingWriteProcedure,
  clinicProcedure,
  clinicProcedureInRead,
  bookingWritesOf,
  protectedProcedure,
} from "../trpc.ts";
import { bookFor } from "./shared/booking.ts";

export const appointmentsRouter = {
  // Authorized by the booking's read (one statement less a booking: docs/performance.md#authorized-by-the-read).
  book: clinicProcedureInRead("MEMBER", bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments",
        status: 201,
        query: ["clinic_id"],
        headers: { "idempotency-key": "idempotency_key" },
        summary: "Book a slot (re-checked in the transaction; an Idempotency-Key makes retries safe)",
        tags: ["appointments"],
        errors: [...bookingErrors, "RATE_LIMITED"],
      },
    })
    .input(
      z.strictObject({ clinic_id: uuid, ...bookingTarget, patient: patientInput, patient_user_id: uuid.optional() }),
    )
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      bookFor(ctx, input, { patient: input.patient, patientUserId: input.patient_user_id }),
    ),

  hold: clinicProcedure("MEMBER", bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments/hold",
        status: 201,
        query: ["clinic_id"],
        headers: { "idempotency-key": "idempotency_key" },
        summary:
          "Hold a slot for the clinic's hold_minutes while the booking is finished (book it with hold_id; at most 3 holds per caller)",
        tags: ["appointments"],
        errors: [...bookingErrors, "BOOKING_LIMIT", "RATE_LIMITED"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...holdTarget, patient_user_id: uuid.optional() }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      bookFor(ctx, input, { patient: { name: "" }, patientUserId: input.patient_user_id, kind: "hold" }),
    ),

  // Any authenticated caller: a patient releases their own hold (T3) here too, without being a member.
  releaseHold: protectedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/appointments/holds/:id",
        status: 204,
        query: ["clinic_id"],
        summary: "Release a hold: your own, or as STAFF anyone's; its time is free again",
        tags: ["appointments"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) =>
      releaseHold(ctx.db, { clinicId: input.clinic_id, id: input.id, userId: ctx.user.id, isAdmin: ctx.user.isAdmin }),
    ),

  setStatus: clinicProcedure("MEMBER", bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments/:id/status",
        query: ["clinic_id"],
        headers: { "if-match": "if_match" },
        summary:
          "Change an appointment's status at the desk: confirm, decline, check in, undo, complete, no-show (If-Match: its updated_at)",
        tags: ["appointments"],
        errors: ["INVALID_TRANSITION", "STALE_UPDATED_AT", "RATE_LIMITED"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        status: z.enum(appointmentStatuses),
        reason: z.string().trim().min(1).max(500).optional(),
        if_match: ifMatch.optional(),
      }),
    )
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      changeAppointmentStatus(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          appointmentId: input.id,
          status: input.status,
          reason: input.reason,
          ifMatch: input.if_match,
          userId: ctx.user.id,
          staff: mayHandleAnyAppointment(ctx),
        },
        ctx.now(),
      ),
    ),

  list: clinicProcedure("STAFF")
    .meta({
      rest: { method: "GET", path: "/v1/appointments", summary: "List appointments by start", tags: ["appointments"] },
    })
    .input(
      z.object({
        clinic_id: uuid,
        from: instantInput.optional(),
        to: instantInput.optional(),
        provider_id: uuid.optional(),
        service_id: uuid.optional(),
        status: statusSet.optional(),
        /** A patient's name or 3+ digits of their phone (the desk's search). */
        patient: z.string().trim().min(2).max(100).optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ appointments: z.array(appointmentOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listAppointments(ctx.db, {
        clinicId: ctx.clinic.id,
        from: input.from,
        to: input.to,
        providerId: input.provider_id,
        serviceId: input.service_id,
        status: input.status,
        patient: input.patient,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),

  get: clinicProcedure("STAFF")
    .meta({
      rest: { method: "GET", path: "/v1/appointments/:id", summary: "Read an appointment", tags: ["appointments"] },
    })
    .input(z.object({ clinic_id: uuid, id: uuid }))
    .output(appointmentOutput)
    .query(({ ctx, input }) => getAppointment(ctx.db, ctx.clinic.id, input.id)),

  cancel: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments/:id/cancel",
        query: ["clinic_id"],
        summary: "Cancel an appointment; its slot is free again",
        tags: ["appointments"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      cancelAppointment(
        ctx.db,
        ctx.clinic.id,
        input.id,
        { userId: ctx.user.id, may: mayHandleAnyAppointment(ctx) ? "any" : "booked-by-me" },
        ctx.now(),
      ),
    ),

  reschedule: clinicProcedure("MEMBER", bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments/:id/reschedule",
        query: ["clinic_id"],
        headers: { "idempotency-key": "idempotency_key" },
        summary:
          "Move a booked appointment to another slot (same provider unless provider_id names another); the old time is freed",
        tags: ["appointments"],
        errors: [...bookingErrors, "INVALID_TRANSITION", "RATE_LIMITED"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        start: instantInput,
        provider_id: uuid.optional(),
        idempotency_key: idempotencyKey,
      }),
    )
    .output(appointmentOutput)
    .mutation(async ({ ctx, input }) => {
      const { appointment } = await rescheduleAppointment(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          appointmentId: input.id,
          start: input.start,
          providerId: input.provider_id,
          idempotencyKey: input.idempotency_key,
          rateLimit: bookingWritesOf(ctx),
        },
        { userId: ctx.user.id, may: mayHandleAnyAppointment(ctx) ? "any" : "booked-by-me" },
        ctx.now(),
      );
      return appointment;
    }),
} satisfies TRPCRouterRecord;
