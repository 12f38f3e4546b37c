import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { seriesModes } from "@clinic/db";
import { bookSeries, cancelSeries, getSeries, seriesOutput, seriesPreviewOutput } from "../modules/series/index.ts";
import { appointmentNotes, bookingErrors, idempotencyKey, patientInput } from "../schemas/booking.ts";
import { answersInput } from "../schemas/questions.ts";
import { instantInput, queryBoolean, uuid } from "../schemas/wire.ts";
import { bookingWriteProcedure, bookingWritesOf, clinicProcedure } from "../trpc.ts";

const seriesTag = ["series"] as const;

/** Series (courses of treatment, §14 R1–R3): STAFF. */
export const seriesRouter = {
  book: clinicProcedure("STAFF", bookingWriteProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointment_series",
        status: "201 or 200 for a dry run",
        query: ["clinic_id", "dry_run"],
        headers: { "idempotency-key": "idempotency_key" },
        summary:
          "Book a series from an RRULE (FREQ=DAILY|WEEKLY, INTERVAL, BYDAY, COUNT ≤ 104 or UNTIL ≤ 2 years) in one transaction; dry_run=true shows it (200) and writes nothing",
        tags: seriesTag,
        errors: [...bookingErrors, "RATE_LIMITED"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        service_id: uuid,
        start: instantInput,
        rrule: z.string().min(1).max(500),
        provider_id: uuid.optional(),
        patient: patientInput,
        patient_user_id: uuid.optional(),
        notes: appointmentNotes,
        /** `{key: value}` answering the service's questions (§19), kept with every occurrence. */
        answers: answersInput.optional(),
        mode: z.enum(seriesModes).default("all_or_nothing"),
        dry_run: queryBoolean.default(false),
        idempotency_key: idempotencyKey,
      }),
    )
    .output(z.union([seriesOutput, seriesPreviewOutput]))
    .mutation(async ({ ctx, input }) => {
      const answer = await bookSeries(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          userId: ctx.user.id,
          serviceId: input.service_id,
          start: input.start,
          rrule: input.rrule,
          providerId: input.provider_id,
          patient: input.patient,
          patientUserId: input.patient_user_id,
          notes: input.notes,
          answers: input.answers,
          mode: input.mode,
          dryRun: input.dry_run,
          idempotencyKey: input.idempotency_key,
          rateLimit: bookingWritesOf(ctx),
        },
        ctx.now(),
      );
      return "dry_run" in answer ? answer : answer.series;
    }),

  get: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/appointment_series/:id",
        query: ["clinic_id"],
        summary: "A series with its occurrences (each an appointment with its own status) and what was skipped",
        tags: seriesTag,
        errors: ["NOT_FOUND"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(seriesOutput)
    .query(({ ctx, input }) => getSeries(ctx.db, ctx.clinic.id, input.id)),

  cancel: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointment_series/:id/cancel",
        query: ["clinic_id"],
        summary:
          "Cancel the series' occurrences from one on (from = an occurrence's start), or all not yet past; one message to the patient",
        tags: seriesTag,
        errors: ["NOT_FOUND", "INVALID_TRANSITION"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid, from: instantInput.optional() }))
    .output(seriesOutput)
    .mutation(({ ctx, input }) =>
      cancelSeries(ctx.db, ctx.clinic.id, input.id, input.from, { userId: ctx.user.id, may: "any" }, ctx.now()),
    ),
} satisfies TRPCRouterRecord;
