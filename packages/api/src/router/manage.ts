import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { appointmentOutput } from "../modules/booking/index.ts";
import {
  cancelManaged,
  confirmManaged,
  declineManaged,
  managedOutput,
  readManaged,
  rescheduleManaged,
} from "../modules/manage/index.ts";
import { idempotencyKey, patientMoveErrors } from "../schemas/booking.ts";
import { instantInput } from "../schemas/wire.ts";
import { guestWritesOf, publicProcedure } from "../trpc.ts";

const tags = ["manage links"] as const;
const path = "/v1/manage/:token";
/** Any text: a malformed token is a dead one (404), never a validation error that says more. */
const token = z.string().max(200);

/**
 * L1–L5: the patient's link from every message (§15). The token is the only credential; a bad or
 * dead one (canceled, ended, made up) is 404. Writes count against the client address's guest limit.
 */
export const manageRouter = {
  get: publicProcedure
    .meta({
      rest: {
        method: "GET",
        path,
        summary: "The appointment of a manage link, its clinic, and what the link may do now",
        tags,
      },
    })
    .input(z.object({ token }))
    .output(managedOutput)
    .query(async ({ ctx, input }) => (await readManaged(ctx.db, input.token, ctx.now())).view),

  confirm: publicProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${path}/confirm`,
        summary:
          "Confirm a guest's hold or accept a waitlist offer: it becomes booked (pending when the clinic confirms)",
        tags,
        errors: ["HOLD_EXPIRED", "INVALID_TRANSITION", "SLOT_UNAVAILABLE", "PATIENT_DOUBLE_BOOKED"],
      },
    })
    .input(z.strictObject({ token }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) => confirmManaged(ctx.db, input.token, ctx.now(), guestWritesOf(ctx))),

  cancel: publicProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${path}/cancel`,
        summary: "Cancel the appointment (until the clinic's cutoff before its start)",
        tags,
        errors: ["CANCELLATION_CUTOFF", "INVALID_TRANSITION"],
      },
    })
    .input(z.strictObject({ token }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) => cancelManaged(ctx.db, input.token, ctx.now(), guestWritesOf(ctx))),

  reschedule: publicProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${path}/reschedule`,
        headers: { "idempotency-key": "idempotency_key" },
        summary: "Move the appointment to another free slot with the same provider (until the cutoff)",
        tags,
        errors: [...patientMoveErrors],
      },
    })
    .input(z.strictObject({ token, start: instantInput, idempotency_key: idempotencyKey }))
    .output(appointmentOutput)
    .mutation(({ ctx, input }) =>
      rescheduleManaged(
        ctx.db,
        input.token,
        { start: input.start, idempotencyKey: input.idempotency_key },
        ctx.now(),
        guestWritesOf(ctx),
      ),
    ),

  decline: publicProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${path}/decline`,
        summary:
          "Decline a waitlist offer (the time goes to the next in line) or a guest's hold (the time is free again)",
        tags,
        errors: ["INVALID_TRANSITION"],
      },
    })
    .input(z.strictObject({ token }))
    .output(z.object({ declined: z.literal(true) }))
    .mutation(({ ctx, input }) => declineManaged(ctx.db, input.token, ctx.now(), guestWritesOf(ctx))),
} satisfies TRPCRouterRecord;
