import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { type Period } from "../domain/workHourRules.ts";
import { type HoursOwner, assertProviderOfClinic, clinicOfProviderWorkHour, createWorkHour, deleteWorkHour, editWorkHour, listWorkHours } from "../schedule/workHours.ts";
import { instantInput, timeOfDay, uuid, weekday } from "../schemas/common.ts";
import { workHourOutput } from "../schemas/schedule.ts";
import { type Membership, authorizeClinic, clinicProcedure, protectedProcedure, roleRank } from "../trpc.ts";

type Caller = { user: { id: string; isAdmin: boolean }; membership: Membership | null };

/** Provider-scope writes: CLINIC_ADMIN (or global ADMIN), or the provider for their own hours. */
export function assertMayManageProvider(ctx: Caller, providerId: string): void {
  if (ctx.user.isAdmin || ctx.user.id === providerId) return;
  if (ctx.membership && roleRank(ctx.membership.role) >= roleRank("CLINIC_ADMIN")) return;
  throw new DomainError("FORBIDDEN", "only a CLINIC_ADMIN or the provider themself may change a provider's schedule");
}

/** Provider-scope reads: STAFF or higher, or the provider reading their own. */
export function assertMayReadProvider(ctx: Caller, providerId: string): void {
  if (ctx.user.isAdmin || ctx.user.id === providerId) return;
  if (ctx.membership && roleRank(ctx.membership.role) >= roleRank("STAFF")) return;
  throw new DomainError("FORBIDDEN", "reading a provider's schedule needs the STAFF role");
}

const newPeriod = { weekday, opens_at: timeOfDay, closes_at: timeOfDay };
const patchFields = { if_updated_at: instantInput.optional(), opens_at: timeOfDay.optional(), closes_at: timeOfDay.optional() };
const editErrors = ["STALE_UPDATED_AT", "WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE", "PRECONDITION_REQUIRED"] as const;

function requireStamp(stamp: Date | undefined): Date {
  if (!stamp) {
    throw new DomainError("PRECONDITION_REQUIRED", "if_updated_at is required: send the work hour's current updated_at");
  }
  return stamp;
}

const periodOf = (input: { opens_at: number; closes_at: number }): Period => ({ opensMin: input.opens_at, closesMin: input.closes_at });
const patchOf = (input: { opens_at?: number | undefined; closes_at?: number | undefined }) => ({ opensMin: input.opens_at, closesMin: input.closes_at });

/**
 * Resolves the clinic of a provider work hour for W7/W8. With clinic_id the caller must be a
 * member of it (403 otherwise); without, the hour's own clinic applies, and a caller who is not a
 * member of that clinic gets 404, as for a missing hour, so ids of other clinics leak nothing.
 */
async function providerHourContext(
  ctx: Parameters<typeof authorizeClinic>[0],
  input: { clinic_id?: string | undefined; provider_id: string; work_hour_id: string },
): Promise<{ owner: HoursOwner; membership: Membership | null }> {
  if (input.clinic_id) {
    const { membership } = await authorizeClinic(ctx, input.clinic_id, "member");
    return { owner: { clinicId: input.clinic_id, providerId: input.provider_id }, membership };
  }
  const clinicId = await clinicOfProviderWorkHour(ctx.db, input.work_hour_id, input.provider_id);
  if (!clinicId) throw new DomainError("NOT_FOUND", "work hour not found");
  try {
    const { membership } = await authorizeClinic(ctx, clinicId, "member");
    return { owner: { clinicId, providerId: input.provider_id }, membership };
  } catch (error) {
    if (error instanceof DomainError && error.domainCode === "FORBIDDEN") throw new DomainError("NOT_FOUND", "work hour not found");
    throw error;
  }
}

export const workHoursRouter = {
  createClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: { method: "POST", path: "/v1/clinics/:clinic_id/work_hours", status: 201, summary: "Add a clinic work-hour period", tags: ["work hours"], errors: ["WORK_HOUR_OVERLAP", "INVALID_TIME_RANGE"] },
    })
    .input(z.strictObject({ clinic_id: uuid, ...newPeriod }))
    .output(workHourOutput)
    .mutation(({ ctx, input }) => createWorkHour(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, { weekday: input.weekday, ...periodOf(input) })),

  listClinic: clinicProcedure("STAFF")
    .meta({ rest: { method: "GET", path: "/v1/clinics/:clinic_id/work_hours", summary: "List the clinic's work hours by weekday and opening", tags: ["work hours"] } })
    .input(z.object({ clinic_id: uuid, weekday: weekday.optional() }))
    .output(z.object({ work_hours: z.array(workHourOutput) }))
    .query(async ({ ctx, input }) => ({ work_hours: await listWorkHours(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input.weekday) })),

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
      editWorkHour(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input.work_hour_id, requireStamp(input.if_updated_at), patchOf(input)),
    ),

  deleteClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({ rest: { method: "DELETE", path: "/v1/clinics/:clinic_id/work_hours/:work_hour_id", status: 204, summary: "Delete a clinic period (appointments stay)", tags: ["work hours"] } })
    .input(z.strictObject({ clinic_id: uuid, work_hour_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWorkHour(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input.work_hour_id)),

  createProvider: clinicProcedure("member")
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
      await assertProviderOfClinic(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      return createWorkHour(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, { weekday: input.weekday, ...periodOf(input) });
    }),

  listProvider: clinicProcedure("member")
    .meta({ rest: { method: "GET", path: "/v1/providers/:provider_id/work_hours", summary: "List a provider's work hours in a clinic", tags: ["work hours"] } })
    .input(z.object({ clinic_id: uuid, provider_id: uuid, weekday: weekday.optional() }))
    .output(z.object({ work_hours: z.array(workHourOutput) }))
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.provider_id);
      await assertProviderOfClinic(ctx.db, ctx.clinic.id, input.provider_id, "NOT_FOUND");
      return { work_hours: await listWorkHours(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input.weekday) };
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
      const { owner, membership } = await providerHourContext(ctx, input);
      assertMayManageProvider({ user: ctx.user, membership }, input.provider_id);
      return editWorkHour(ctx.db, owner, input.work_hour_id, requireStamp(input.if_updated_at), patchOf(input));
    }),

  deleteProvider: protectedProcedure
    .meta({
      rest: { method: "DELETE", path: "/v1/providers/:provider_id/work_hours/:work_hour_id", status: 204, query: ["clinic_id"], summary: "Delete a provider period", tags: ["work hours"] },
    })
    .input(z.strictObject({ clinic_id: uuid.optional(), provider_id: uuid, work_hour_id: uuid }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const { owner, membership } = await providerHourContext(ctx, input);
      assertMayManageProvider({ user: ctx.user, membership }, input.provider_id);
      await deleteWorkHour(ctx.db, owner, input.work_hour_id);
    }),
} satisfies TRPCRouterRecord;
