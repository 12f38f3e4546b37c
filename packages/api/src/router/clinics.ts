import type { TRPCRouterRecord } from "@trpc/server";
import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, clinicMembers, clinics } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { DomainError } from "../errors.ts";
import { decodeCursor, instantOutput, nextCursorOutput, pageInput, pageOf, timeZone, uuid } from "../schemas/common.ts";
import { clinicProcedure, protectedProcedure } from "../trpc.ts";

export const clinicOutput = z.object({
  id: z.string(),
  name: z.string(),
  timezone: z.string(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type ClinicOutput = z.infer<typeof clinicOutput>;

type ClinicRow = typeof clinics.$inferSelect;
export const toClinic = (row: ClinicRow): ClinicOutput => ({
  id: row.id,
  name: row.name,
  timezone: row.timezone,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const clinicName = z.string().trim().min(1).max(200);

/** Reads one clinic (the caller has been authorised for it). */
export async function getClinic(db: Db, clinicId: string): Promise<ClinicOutput> {
  const [row] = await db.select().from(clinics).where(eq(clinics.id, clinicId));
  if (!row) throw new DomainError("NOT_FOUND", "clinic not found");
  return toClinic(row);
}

export const clinicsRouter = {
  create: protectedProcedure
    .meta({ rest: { method: "POST", path: "/v1/clinics", status: 201, summary: "Create a clinic (global ADMIN)", tags: ["clinics"] } })
    .input(z.strictObject({ name: clinicName, timezone: timeZone.default("UTC") }))
    .output(clinicOutput)
    .mutation(async ({ ctx, input }) => {
      if (!ctx.user.isAdmin) throw new DomainError("FORBIDDEN", "creating a clinic needs the global ADMIN role");
      const [row] = await ctx.db.insert(clinics).values({ name: input.name, timezone: input.timezone }).returning();
      if (!row) throw new Error("insert returned no row");
      return toClinic(row);
    }),

  list: protectedProcedure
    .meta({ rest: { method: "GET", path: "/v1/clinics", summary: "List clinics (ADMIN: all; others: their own)", tags: ["clinics"] } })
    .input(z.object({ ...pageInput }))
    .output(z.object({ clinics: z.array(clinicOutput), next_cursor: nextCursorOutput }))
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor, 2) : undefined;
      const afterCondition = after
        ? or(gt(clinics.name, after[0] ?? ""), and(eq(clinics.name, after[0] ?? ""), gt(clinics.id, after[1] ?? "")))
        : undefined;
      const memberOf = ctx.user.isAdmin
        ? undefined
        : sql`exists (select 1 from ${clinicMembers} where ${clinicMembers.clinicId} = ${clinics.id} and ${clinicMembers.userId} = ${ctx.user.id})`;
      const rows = await ctx.db
        .select()
        .from(clinics)
        .where(and(memberOf, afterCondition))
        .orderBy(asc(clinics.name), asc(clinics.id))
        .limit(input.limit + 1);
      const page = pageOf(rows, input.limit, (r) => [r.name, r.id]);
      return { clinics: page.items.map(toClinic), next_cursor: page.next_cursor };
    }),

  get: clinicProcedure("member")
    .meta({ rest: { method: "GET", path: "/v1/clinics/:clinic_id", summary: "Read a clinic", tags: ["clinics"] } })
    .input(z.object({ clinic_id: uuid }))
    .output(clinicOutput)
    .query(({ ctx }) => getClinic(ctx.db, ctx.clinic.id)),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({ rest: { method: "PATCH", path: "/v1/clinics/:clinic_id", summary: "Update a clinic's name or time zone", tags: ["clinics"] } })
    .input(z.strictObject({ clinic_id: uuid, name: clinicName.optional(), timezone: timeZone.optional() }))
    .output(clinicOutput)
    .mutation(async ({ ctx, input }) => {
      return ctx.db.transaction(async (tx) => {
        const [row] = await tx
          .update(clinics)
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
            updatedAt: new Date(),
          })
          .where(eq(clinics.id, ctx.clinic.id))
          .returning();
        if (!row) throw new DomainError("NOT_FOUND", "clinic not found");
        // The time zone moves every wall-clock period on the time line.
        if (input.timezone !== undefined && input.timezone !== ctx.clinic.timezone) {
          await invalidateAvailability(tx, ctx.clinic.id, [ctx.clinic.id]);
        }
        return toClinic(row);
      });
    }),
} satisfies TRPCRouterRecord;
