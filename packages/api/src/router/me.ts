import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { appointmentOutput } from "../modules/booking/index.ts";
import { profileOf, profileOutput } from "../modules/identity/index.ts";
import {
  cancelMyAppointment,
  getMyAppointment,
  listMyAppointments,
  rescheduleMyAppointment,
} from "../modules/patients/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { idempotencyKey, patientMoveErrors, statusSet } from "../schemas/booking.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { bookingWriteProcedure, protectedProcedure, bookingWritesOf } from "../trpc.ts";

const tags = ["my appointments"] as const;
const mine = "/v1/me/appointments/:id";

/** U1–U4: the caller's own appointments, in every clinic; another patient's are 404. */
export const meRouter = {
  // Who the caller is, whichever credential they came with (a session, the access_token cookie or a
  // bearer token): the setup pages open a provider's own work hours by it (§3, docs/web.md). S6
  // answers only a session, so the development sign-in's and API callers' tokens had no way to ask.
  profile: protectedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/me",
        summary: "Who you are: your user id and e-mail, whichever way you signed in",
        tags,
      },
    })
    .input(z.object({}).optional())
    .output(profileOutput)
    .query(({ ctx }) => profileOf(ctx.user)),

  appointments: protectedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/me/appointments",
        summary: "Your appointments in every clinic, by start",
        tags,
      },
    })
    .input(
      z.object({
        from: instantInput.optional(),
        to: instantInput.optional(),
        status: statusSet.optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ appointments: z.array(appointmentOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) => listMyAppointments(ctx.db, { userId: ctx.user.id, ...input })),

  appointment: protectedProcedure
    .meta({ rest: { method: "GET", path: mine, summary: "One of your appointments", tags } })
    .input(z.object({ id: uuid }))
    .output(appointmentOutput)
    .query(({ ctx, input }) => getMyAppointment(ctx.db, ctx.user.id, input.id)),

  cancel: bookingWriteProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${mine}/cancel`,
        summary: "Cancel one of your appointments (until the clinic's cutoff before its start)",
        tags,
        errors: ["CANCELLATION_CUTOFF", "RATE_LIMITED"],
      },
    })
    .input(z.strictObject({ id: uuid }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) => cancelMyAppointment(ctx.db, ctx.user.id, input.id, ctx.now(), bookingWritesOf(ctx))),

  reschedule: bookingWriteProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${mine}/reschedule`,
        headers: { "idempotency-key": "idempotency_key" },
        summary: "Move one of your appointments to another slot with the same provider (until the cutoff)",
        tags,
        errors: [...patientMoveErrors, "RATE_LIMITED"],
      },
    })
    .input(z.strictObject({ id: uuid, start: instantInput, idempotency_key: idempotencyKey }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      rescheduleMyAppointment(
        ctx.db,
        ctx.user.id,
        input.id,
        { start: input.start, idempotencyKey: input.idempotency_key, rateLimit: bookingWritesOf(ctx) },
        ctx.now(),
      ),
    ),
} satisfies TRPCRouterRecord;
