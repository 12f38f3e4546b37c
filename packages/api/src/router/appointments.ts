import type { TRPCRouterRecord } from "@trpc/server";
import { and, asc, eq, gt, gte, lt, or } from "drizzle-orm";
import { z } from "zod";
import { appointments, appointmentStatuses } from "@clinic/db";
import { bookAppointment, cancelAppointment, getAppointment, selectAppointments, toAppointment } from "../booking/book.ts";
import { decodeCursor, instantInput, instantOutput, nextCursorOutput, pageInput, pageOf, phoneE164, uuid } from "../schemas/common.ts";
import { clinicProcedure } from "../trpc.ts";

export const appointmentOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  service_id: z.string(),
  service_name: z.string(),
  provider_id: z.string(),
  provider_name: z.string(),
  start: instantOutput,
  end: instantOutput,
  status: z.enum(appointmentStatuses),
  patient: z.object({ name: z.string(), email: z.string().nullable(), phone_e164: z.string().nullable() }),
  notes: z.string().nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
  canceled_at: instantOutput.nullable(),
});

const patientInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(320).optional(),
  phone_e164: phoneE164.optional(),
});

export const appointmentsRouter = {
  book: clinicProcedure("member")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/appointments",
        status: 201,
        query: ["clinic_id"],
        headers: { "idempotency-key": "idempotency_key" },
        summary: "Book a slot (re-checked in the transaction; an Idempotency-Key makes retries safe)",
        tags: ["appointments"],
        errors: ["SLOT_UNAVAILABLE", "IDEMPOTENCY_KEY_REUSED", "NOT_A_PROVIDER", "SERVICE_INACTIVE", "CONFLICT"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        service_id: uuid,
        start: instantInput,
        provider_id: uuid.optional(),
        patient: patientInput,
        notes: z.string().max(2000).optional(),
        idempotency_key: z.string().min(1).max(255).optional(),
      }),
    )
    .output(appointmentOutput)
    .mutation(async ({ ctx, input }) => {
      const { appointment } = await bookAppointment(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          userId: ctx.user.id,
          serviceId: input.service_id,
          start: input.start,
          providerId: input.provider_id,
          patient: input.patient,
          notes: input.notes,
          idempotencyKey: input.idempotency_key,
        },
        ctx.now(),
      );
      return appointment;
    }),

  list: clinicProcedure("STAFF")
    .meta({ rest: { method: "GET", path: "/v1/appointments", summary: "List appointments by start", tags: ["appointments"] } })
    .input(
      z.object({
        clinic_id: uuid,
        from: instantInput.optional(),
        to: instantInput.optional(),
        provider_id: uuid.optional(),
        service_id: uuid.optional(),
        status: z.enum(appointmentStatuses).optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ appointments: z.array(appointmentOutput), next_cursor: nextCursorOutput }))
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor, 2) : undefined;
      const afterStart = after ? new Date(after[0] ?? "") : undefined;
      const rows = await selectAppointments(ctx.db)
        .where(
          and(
            eq(appointments.clinicId, ctx.clinic.id),
            input.from ? gte(appointments.startsAt, input.from) : undefined,
            input.to ? lt(appointments.startsAt, input.to) : undefined,
            input.provider_id ? eq(appointments.providerId, input.provider_id) : undefined,
            input.service_id ? eq(appointments.serviceId, input.service_id) : undefined,
            input.status ? eq(appointments.status, input.status) : undefined,
            afterStart && after
              ? or(gt(appointments.startsAt, afterStart), and(eq(appointments.startsAt, afterStart), gt(appointments.id, after[1] ?? "")))
              : undefined,
          ),
        )
        .orderBy(asc(appointments.startsAt), asc(appointments.id))
        .limit(input.limit + 1);
      const page = pageOf(rows, input.limit, (r) => [r.startsAt.toISOString(), r.id]);
      return { appointments: page.items.map(toAppointment), next_cursor: page.next_cursor };
    }),

  get: clinicProcedure("STAFF")
    .meta({ rest: { method: "GET", path: "/v1/appointments/:id", summary: "Read an appointment", tags: ["appointments"] } })
    .input(z.object({ clinic_id: uuid, id: uuid }))
    .output(appointmentOutput)
    .query(({ ctx, input }) => getAppointment(ctx.db, ctx.clinic.id, input.id)),

  cancel: clinicProcedure("member")
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
    .mutation(({ ctx, input }) => cancelAppointment(ctx.db, ctx.clinic.id, input.id)),
} satisfies TRPCRouterRecord;
