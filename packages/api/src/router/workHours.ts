import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { Period } from "../domain/workHourRules.ts";
import { preconditionRequired } from "../errors.ts";
import { assertMayManageProvider, assertMayReadProvider, authorizeProviderWorkHour } from "../modules/access/index.ts";
import { requireProvider } from "../modules/members/index.ts";
import {
  clinicOwner,
  createWorkHour,
  deleteWorkHour,
  editWorkHour,
  listWorkHours,
  workHourOutput,
} from "../modules/schedule/index.ts";
import { ifUpdatedAt, timeOfDay, uuid, weekday } from "../schemas/wire.ts";
import { clinicProcedure, protectedProcedure } from "../trpc.ts";

const newPeriod = { weekday, opens_at: timeOfDay, closes_at: timeOfDay };
const patchFields = { if_updated_at: ifUpdatedAt, opens_at: timeOfDay.optional(), closes_at: timeOfDay.optional() };
const editErrors = ["STALE_UPDATED_AT", "WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE", "PRECONDITION_REQUIRED"] as const;

function requireStamp(stamp: Date | undefined): Date {
  if (!stamp) throw preconditionRequired("work hour");
  return stamp;
}

const periodOf = (input: { opens_at: number; closes_at: number }): Period => ({
  opensMin: input.opens_at,
  closesMin: input.closes_at,
});
const patchOf = (input: { opens_at?: number | undefined; closes_at?: number | undefined }) => ({
  opensMin: input.opens_at,
  closesMin: input.closes_at,
});

export const workHoursRouter = {
  createClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/work_hours",
        status: 201,
        summary: "Add a clinic work-hour period",
        tags: ["work hours"],
        errors: ["WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...newPeriod }))
    .output(workHourOutput)
    .mutation(({ ctx, input }) =>
      createWorkHour(ctx.db, clinicOwner(ctx.clinic.id), { weekday: input.weekday, ...periodOf(input) }),
    ),

  listClinic: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/work_hours",
        summary: "List the clinic's work hours by weekday and opening",
        tags: ["work hours"],
      },
    })
    .input(z.object({ clinic_id: uuid, weekday: weekday.optional() }))
    .output(z.object({ work_hours: z.array(workHourOutput) }))
    .query(async ({ ctx, input }) => ({
      work_hours: await listWorkHours(ctx.db, clinicOwner(ctx.clinic.id), input.weekday),
    })),

  editClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/clinics/:clinic_id/work_hours/:work_hour_id",
        query: ["if_updated_at"],
        summary: "Edit a clinic period (optimistic concurrency: if_updated_at = the record's updated_at)",
        tags: ["work hours"],
        errors: [...editErrors],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, work_hour_id: uuid, ...patchFields }))
    .output(workHourOutput)
    .mutation(({ ctx, input }) =>
      editWorkHour(
        ctx.db,
        clinicOwner(ctx.clinic.id),
        input.work_hour_id,
        requireStamp(input.if_updated_at),
        patchOf(input),
      ),
    ),

  deleteClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/clinics/:clinic_id/work_hours/:work_hour_id",
        status: 204,
        summary: "Delete a clinic period (appointments stay)",
        tags: ["work hours"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, work_hour_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWorkHour(ctx.db, clinicOwner(ctx.clinic.id), input.work_hour_id)),

  createProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/providers/:provider_id/work_hours",
        status: 201,
        query: ["clinic_id"],
        summary: "Add a provider work-hour period (CLINIC_ADMIN or the provider)",
        tags: ["work hours"],
        errors: ["WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE", "NOT_A_PROVIDER"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, ...newPeriod }))
    .output(workHourOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      return createWorkHour(
        ctx.db,
        { clinicId: ctx.clinic.id, providerId: input.provider_id },
        { weekday: input.weekday, ...periodOf(input) },
      );
    }),

  listProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/providers/:provider_id/work_hours",
        summary: "List a provider's work hours in a clinic",
        tags: ["work hours"],
      },
    })
    .input(z.object({ clinic_id: uuid, provider_id: uuid, weekday: weekday.optional() }))
    .output(z.object({ work_hours: z.array(workHourOutput) }))
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_FOUND");
      return {
        work_hours: await listWorkHours(
          ctx.db,
          { clinicId: ctx.clinic.id, providerId: input.provider_id },
          input.weekday,
        ),
      };
    }),

  editProvider: protectedProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/providers/:provider_id/work_hours/:work_hour_id",
        query: ["if_updated_at", "clinic_id"],
        summary: "Edit a provider period (clinic_id optional: the hour's own clinic applies)",
        tags: ["work hours"],
        errors: [...editErrors],
      },
    })
    .input(z.strictObject({ clinic_id: uuid.optional(), provider_id: uuid, work_hour_id: uuid, ...patchFields }))
    .output(workHourOutput)
    .mutation(async ({ ctx, input }) => {
      const owner = await authorizeProviderWorkHour(ctx.db, ctx.user, input);
      return editWorkHour(ctx.db, owner, input.work_hour_id, requireStamp(input.if_updated_at), patchOf(input));
    }),

  deleteProvider: protectedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/providers/:provider_id/work_hours/:work_hour_id",
        status: 204,
        query: ["clinic_id"],
        summary: "Delete a provider period",
        tags: ["work hours"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid.optional(), provider_id: uuid, work_hour_id: uuid }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const owner = await authorizeProviderWorkHour(ctx.db, ctx.user, input);
      await deleteWorkHour(ctx.db, owner, input.work_hour_id);
    }),
} satisfies TRPCRouterRecord;
