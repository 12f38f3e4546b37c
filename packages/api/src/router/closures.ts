import type { TRPCRouterRecord } from "@trpc/server";
import { and, asc, eq, gt, isNull, lt } from "drizzle-orm";
import { z } from "zod";
import { closures, type Db } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { DomainError } from "../errors.ts";
import { assertProviderOfClinic } from "../schedule/workHours.ts";
import { instantInput, uuid } from "../schemas/common.ts";
import { type ClosureOutput, closureOutput, toClosure } from "../schemas/schedule.ts";
import { clinicProcedure } from "../trpc.ts";
import { assertMayManageProvider, assertMayReadProvider } from "./workHours.ts";

/** Longest closure: a year. Longer ranges are almost always a typo in the year. */
const maxClosureMs = 366 * 86_400_000;

const closureInput = { starts_at: instantInput, ends_at: instantInput, reason: z.string().trim().max(500).optional() };
const rangeInput = { from: instantInput.optional(), to: instantInput.optional() };

interface Owner {
  clinicId: string;
  providerId: string | null;
}
const ownerCondition = (owner: Owner) => and(eq(closures.clinicId, owner.clinicId), owner.providerId ? eq(closures.providerId, owner.providerId) : isNull(closures.providerId));

async function createClosure(db: Db, owner: Owner, input: { starts_at: Date; ends_at: Date; reason?: string | undefined }): Promise<ClosureOutput> {
  if (input.ends_at.getTime() <= input.starts_at.getTime()) {
    throw new DomainError("INVALID_TIME_RANGE", "ends_at must be after starts_at", { errors: [{ path: "ends_at", message: "must be after starts_at" }] });
  }
  if (input.ends_at.getTime() - input.starts_at.getTime() > maxClosureMs) {
    throw new DomainError("VALIDATION_FAILED", "ends_at: a closure may last at most 366 days", { errors: [{ path: "ends_at", message: "a closure may last at most 366 days" }] });
  }
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(closures)
      .values({ clinicId: owner.clinicId, scope: owner.providerId ? "provider" : "clinic", providerId: owner.providerId, startsAt: input.starts_at, endsAt: input.ends_at, reason: input.reason ?? null })
      .returning();
    if (!row) throw new Error("insert returned no row");
    await invalidateAvailability(tx, owner.clinicId, [owner.providerId ?? owner.clinicId]);
    return toClosure(row);
  });
}

/** Closures of one owner overlapping [from, to), by start (an absent bound is unbounded). */
export async function listClosures(db: Db, owner: Owner, range: { from?: Date | undefined; to?: Date | undefined }): Promise<ClosureOutput[]> {
  const rows = await db
    .select()
    .from(closures)
    .where(and(ownerCondition(owner), range.from ? gt(closures.endsAt, range.from) : undefined, range.to ? lt(closures.startsAt, range.to) : undefined))
    .orderBy(asc(closures.startsAt), asc(closures.id));
  return rows.map(toClosure);
}

async function deleteClosure(db: Db, owner: Owner, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx.delete(closures).where(and(ownerCondition(owner), eq(closures.id, id))).returning({ id: closures.id });
    if (deleted.length === 0) throw new DomainError("NOT_FOUND", "closure not found");
    await invalidateAvailability(tx, owner.clinicId, [owner.providerId ?? owner.clinicId]);
  });
}

const listOutput = z.object({ closures: z.array(closureOutput) });

export const closuresRouter = {
  createClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({ rest: { method: "POST", path: "/v1/clinics/:clinic_id/closures", status: 201, summary: "Close the clinic for a period (e.g. a holiday)", tags: ["closures"], errors: ["INVALID_TIME_RANGE"] } })
    .input(z.strictObject({ clinic_id: uuid, ...closureInput }))
    .output(closureOutput)
    .mutation(({ ctx, input }) => createClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input)),

  listClinic: clinicProcedure("STAFF")
    .meta({ rest: { method: "GET", path: "/v1/clinics/:clinic_id/closures", summary: "Clinic closures overlapping [from, to)", tags: ["closures"] } })
    .input(z.object({ clinic_id: uuid, ...rangeInput }))
    .output(listOutput)
    .query(async ({ ctx, input }) => ({ closures: await listClosures(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input) })),

  deleteClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({ rest: { method: "DELETE", path: "/v1/clinics/:clinic_id/closures/:closure_id", status: 204, summary: "Delete a clinic closure", tags: ["closures"] } })
    .input(z.strictObject({ clinic_id: uuid, closure_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: null }, input.closure_id)),

  createProvider: clinicProcedure("member")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/providers/:provider_id/closures",
        status: 201,
        query: ["clinic_id"],
        summary: "A provider's absence (CLINIC_ADMIN or the provider)",
        tags: ["closures"],
        errors: ["INVALID_TIME_RANGE", "NOT_A_PROVIDER"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, ...closureInput }))
    .output(closureOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await assertProviderOfClinic(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      return createClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input);
    }),

  listProvider: clinicProcedure("member")
    .meta({ rest: { method: "GET", path: "/v1/providers/:provider_id/closures", summary: "A provider's closures overlapping [from, to)", tags: ["closures"] } })
    .input(z.object({ clinic_id: uuid, provider_id: uuid, ...rangeInput }))
    .output(listOutput)
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.provider_id);
      await assertProviderOfClinic(ctx.db, ctx.clinic.id, input.provider_id, "NOT_FOUND");
      return { closures: await listClosures(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input) };
    }),

  deleteProvider: clinicProcedure("member")
    .meta({ rest: { method: "DELETE", path: "/v1/providers/:provider_id/closures/:closure_id", status: 204, query: ["clinic_id"], summary: "Delete a provider closure", tags: ["closures"] } })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, closure_id: uuid }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await deleteClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input.closure_id);
    }),
} satisfies TRPCRouterRecord;
