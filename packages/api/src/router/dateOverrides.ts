import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { assertMayManageProvider, assertMayReadProvider } from "../modules/access/index.ts";
import { requireProvider } from "../modules/members/index.ts";
import {
  type ScheduleOwner,
  clinicOwner,
  dateOverrideOutput,
  deleteDateOverride,
  listDateOverrides,
  putDateOverride,
} from "../modules/schedule/index.ts";
import { ifUpdatedAt, localDate, timeOfDay, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const overrideBody = {
  date: localDate,
  periods: z.array(z.strictObject({ opens_at: timeOfDay, closes_at: timeOfDay })).max(24),
  reason: z.string().trim().max(500).optional(),
  if_updated_at: ifUpdatedAt,
};
const rangeInput = { from: localDate.optional(), to: localDate.optional() };
const putErrors = ["STALE_UPDATED_AT", "WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE", "PRECONDITION_REQUIRED"] as const;
const tags = ["date overrides"] as const;

const put = (
  owner: ScheduleOwner,
  input: {
    date: string;
    periods: { opens_at: number; closes_at: number }[];
    reason?: string | undefined;
    if_updated_at?: Date | undefined;
  },
) => ({
  owner,
  date: input.date,
  override: {
    periods: input.periods.map((p) => ({ opensMin: p.opens_at, closesMin: p.closes_at })),
    reason: input.reason,
    ifUpdatedAt: input.if_updated_at,
  },
});

export const dateOverridesRouter = {
  putClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PUT",
        path: "/v1/clinics/:clinic_id/date_overrides/:date",
        status: "201 or 200",
        query: ["if_updated_at"],
        summary: "Set the clinic's hours of one date (replacing requires if_updated_at); no periods = closed",
        tags,
        errors: [...putErrors],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...overrideBody }))
    .output(dateOverrideOutput)
    .mutation(async ({ ctx, input }) => {
      const { owner, date, override } = put(clinicOwner(ctx.clinic.id), input);
      return (await putDateOverride(ctx.db, owner, date, override)).override;
    }),

  listClinic: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/date_overrides",
        summary: "The clinic's date overrides in [from, to], by date",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, ...rangeInput }))
    .output(z.object({ date_overrides: z.array(dateOverrideOutput) }))
    .query(async ({ ctx, input }) => ({
      date_overrides: await listDateOverrides(ctx.db, clinicOwner(ctx.clinic.id), input),
    })),

  deleteClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/clinics/:clinic_id/date_overrides/:date",
        status: 204,
        summary: "Remove the clinic's override of a date (weekly hours apply)",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, date: localDate }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteDateOverride(ctx.db, clinicOwner(ctx.clinic.id), input.date)),

  putProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "PUT",
        path: "/v1/providers/:provider_id/date_overrides/:date",
        status: "201 or 200",
        query: ["clinic_id", "if_updated_at"],
        summary: "Set a provider's hours of one date (CLINIC_ADMIN or the provider)",
        tags,
        errors: [...putErrors, "NOT_A_PROVIDER"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, ...overrideBody }))
    .output(dateOverrideOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      const { owner, date, override } = put({ clinicId: ctx.clinic.id, providerId: input.provider_id }, input);
      return (await putDateOverride(ctx.db, owner, date, override)).override;
    }),

  listProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/providers/:provider_id/date_overrides",
        summary: "A provider's date overrides in [from, to], by date",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, provider_id: uuid, ...rangeInput }))
    .output(z.object({ date_overrides: z.array(dateOverrideOutput) }))
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_FOUND");
      return {
        date_overrides: await listDateOverrides(
          ctx.db,
          { clinicId: ctx.clinic.id, providerId: input.provider_id },
          input,
        ),
      };
    }),

  deleteProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/providers/:provider_id/date_overrides/:date",
        status: 204,
        query: ["clinic_id"],
        summary: "Remove a provider's override of a date",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, date: localDate }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await deleteDateOverride(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input.date);
    }),
} satisfies TRPCRouterRecord;
