import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { clinicLocales } from "@clinic/db";
import { forbidden } from "../errors.ts";
import { clinicOutput, createClinic, getClinic, listClinics, updateClinic } from "../modules/clinics/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { timeZone, uuid } from "../schemas/wire.ts";
import { clinicProcedure, protectedProcedure } from "../trpc.ts";

const clinicName = z.string().trim().min(1).max(200);
const settings = {
  online_booking: z.boolean().optional(),
  patient_cancel_cutoff_min: z.number().int().min(0).max(10_080).optional(),
  max_open_bookings_per_patient: z.number().int().min(1).max(100).optional(),
  reminder_offsets_min: z.array(z.number().int().min(5).max(20_160)).max(5).optional(),
  hold_minutes: z.number().int().min(1).max(60).optional(),
  no_show_limit: z.number().int().min(1).max(20).nullable().optional(),
  locale: z.enum(clinicLocales).optional(),
  offer_minutes: z.number().int().min(5).max(1440).optional(),
  guest_holds_max: z.number().int().min(0).max(1000).optional(),
  /** §21: days an ended appointment keeps its patient's personal values; null keeps them (docs/patient-data.md#retention). */
  retention_days: z.number().int().min(30).max(3650).nullable().optional(),
};

export const clinicsRouter = {
  create: protectedProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics",
        status: 201,
        summary: "Create a clinic (global ADMIN)",
        tags: ["clinics"],
      },
    })
    .input(z.strictObject({ name: clinicName, timezone: timeZone.default("UTC"), ...settings }))
    .output(clinicOutput)
    .mutation(({ ctx, input }) => {
      if (!ctx.user.isAdmin) throw forbidden("creating a clinic needs the global ADMIN role");
      return createClinic(ctx.db, input, ctx.now());
    }),

  list: protectedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics",
        summary: "List clinics (ADMIN: all; others: their own)",
        tags: ["clinics"],
      },
    })
    .input(z.object({ ...pageInput }))
    .output(z.object({ clinics: z.array(clinicOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) => listClinics(ctx.db, ctx.user, input)),

  get: clinicProcedure("MEMBER")
    .meta({ rest: { method: "GET", path: "/v1/clinics/:clinic_id", summary: "Read a clinic", tags: ["clinics"] } })
    .input(z.object({ clinic_id: uuid }))
    .output(clinicOutput)
    .query(({ ctx }) => getClinic(ctx.db, ctx.clinic.id)),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/clinics/:clinic_id",
        summary: "Update a clinic's name, time zone or patient self-service settings",
        tags: ["clinics"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, name: clinicName.optional(), timezone: timeZone.optional(), ...settings }))
    .output(clinicOutput)
    .mutation(({ ctx, input }) => {
      const { clinic_id: _clinicId, ...patch } = input;
      return updateClinic(ctx.db, ctx.clinic.id, patch, ctx.now());
    }),
} satisfies TRPCRouterRecord;
