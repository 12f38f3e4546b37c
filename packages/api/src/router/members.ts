import type { TRPCRouterRecord } from "@trpc/server";
import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, clinicMembers, memberStatuses, services, users } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { DomainError } from "../errors.ts";
import { decodeCursor, instantOutput, nextCursorOutput, pageInput, pageOf, phoneE164, uuid } from "../schemas/common.ts";
import { clinicProcedure } from "../trpc.ts";

export const memberOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  user_id: z.string(),
  full_name: z.string(),
  email: z.string(),
  phone_e164: z.string().nullable(),
  is_provider: z.boolean(),
  clinic_role: z.string(),
  status: z.enum(memberStatuses),
  notes: z.string().nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type MemberOutput = z.infer<typeof memberOutput>;

/** Columns of a member joined with its user, for `toMember`. */
export const memberColumns = {
  id: clinicMembers.id,
  clinicId: clinicMembers.clinicId,
  userId: clinicMembers.userId,
  fullName: clinicMembers.fullName,
  email: users.email,
  phoneE164: users.phoneE164,
  isProvider: clinicMembers.isProvider,
  clinicRole: clinicMembers.clinicRole,
  status: clinicMembers.status,
  notes: clinicMembers.notes,
  createdAt: clinicMembers.createdAt,
  updatedAt: clinicMembers.updatedAt,
};
type MemberRow = { [K in keyof typeof memberColumns]: (typeof memberColumns)[K]["_"]["data"] | (K extends "phoneE164" | "notes" ? null : never) };

export const toMember = (row: MemberRow): MemberOutput => ({
  id: row.id,
  clinic_id: row.clinicId,
  user_id: row.userId,
  full_name: row.fullName,
  email: row.email,
  phone_e164: row.phoneE164,
  is_provider: row.isProvider,
  clinic_role: row.clinicRole,
  status: row.status,
  notes: row.notes,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** One member of a clinic by user id; 404 when the user is not a member of that clinic. */
export async function getMember(db: Db, clinicId: string, userId: string): Promise<MemberOutput> {
  const [row] = await db
    .select(memberColumns)
    .from(clinicMembers)
    .innerJoin(users, eq(users.id, clinicMembers.userId))
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
  if (!row) throw new DomainError("NOT_FOUND", "member not found");
  return toMember(row);
}

const fullName = z.string().trim().min(1).max(200);
const clinicRole = z.string().trim().min(1).max(64);
const notes = z.string().max(5000).nullable();

export const membersRouter = {
  add: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/members",
        status: 201,
        summary: "Add a member (links the user with that e-mail or user_id, else creates the user)",
        tags: ["members"],
        errors: ["ALREADY_MEMBER"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        email: z.email().max(320),
        full_name: fullName,
        user_id: uuid.optional(),
        phone_e164: phoneE164.optional(),
        clinic_role: clinicRole.default("STAFF"),
        is_provider: z.boolean().default(false),
        notes: notes.optional(),
      }),
    )
    .output(memberOutput)
    .mutation(async ({ ctx, input }) => {
      return ctx.db.transaction(async (tx) => {
        const userId = await findOrCreateUser(tx, input);
        const [existing] = await tx
          .select({ id: clinicMembers.id })
          .from(clinicMembers)
          .where(and(eq(clinicMembers.clinicId, ctx.clinic.id), eq(clinicMembers.userId, userId)));
        if (existing) throw new DomainError("ALREADY_MEMBER", "the user is already a member of this clinic");
        await tx.insert(clinicMembers).values({
          clinicId: ctx.clinic.id,
          userId,
          fullName: input.full_name,
          clinicRole: input.clinic_role,
          isProvider: input.is_provider,
          status: input.is_provider ? "pending" : "approved",
          notes: input.notes ?? null,
        });
        return getMember(tx, ctx.clinic.id, userId);
      });
    }),

  list: clinicProcedure("STAFF")
    .meta({ rest: { method: "GET", path: "/v1/clinics/:clinic_id/members", summary: "List the members of a clinic by full_name", tags: ["members"] } })
    .input(z.object({ clinic_id: uuid, ...pageInput }))
    .output(z.object({ members: z.array(memberOutput), next_cursor: nextCursorOutput }))
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor, 2) : undefined;
      const rows = await ctx.db
        .select(memberColumns)
        .from(clinicMembers)
        .innerJoin(users, eq(users.id, clinicMembers.userId))
        .where(
          and(
            eq(clinicMembers.clinicId, ctx.clinic.id),
            after
              ? or(
                  gt(clinicMembers.fullName, after[0] ?? ""),
                  and(eq(clinicMembers.fullName, after[0] ?? ""), gt(clinicMembers.id, after[1] ?? "")),
                )
              : undefined,
          ),
        )
        .orderBy(asc(clinicMembers.fullName), asc(clinicMembers.id))
        .limit(input.limit + 1);
      const page = pageOf(rows, input.limit, (r) => [r.fullName, r.id]);
      return { members: page.items.map(toMember), next_cursor: page.next_cursor };
    }),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/clinics/:clinic_id/members/:user_id",
        summary: "Update a member (setting is_provider true on a non-provider makes them pending)",
        tags: ["members"],
        errors: ["PROVIDER_HAS_SERVICES"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        user_id: uuid,
        full_name: fullName.optional(),
        phone_e164: phoneE164.nullable().optional(),
        clinic_role: clinicRole.optional(),
        is_provider: z.boolean().optional(),
        notes: notes.optional(),
      }),
    )
    .output(memberOutput)
    .mutation(async ({ ctx, input }) => {
      return ctx.db.transaction(async (tx) => {
        const [current] = await tx
          .select({ isProvider: clinicMembers.isProvider, status: clinicMembers.status })
          .from(clinicMembers)
          .where(and(eq(clinicMembers.clinicId, ctx.clinic.id), eq(clinicMembers.userId, input.user_id)))
          .for("update");
        if (!current) throw new DomainError("NOT_FOUND", "member not found");
        const becomesProvider = input.is_provider === true && !current.isProvider;
        const stopsBeingProvider = input.is_provider === false && current.isProvider;
        if (stopsBeingProvider) await assertNoAssignedServices(tx, ctx.clinic.id, input.user_id);
        await tx
          .update(clinicMembers)
          .set({
            ...(input.full_name !== undefined ? { fullName: input.full_name } : {}),
            ...(input.clinic_role !== undefined ? { clinicRole: input.clinic_role } : {}),
            ...(input.is_provider !== undefined ? { isProvider: input.is_provider } : {}),
            ...(becomesProvider ? { status: "pending" as const } : {}),
            ...(stopsBeingProvider ? { status: "approved" as const } : {}),
            ...(input.notes !== undefined ? { notes: input.notes } : {}),
            updatedAt: new Date(),
          })
          .where(and(eq(clinicMembers.clinicId, ctx.clinic.id), eq(clinicMembers.userId, input.user_id)));
        if (input.phone_e164 !== undefined) {
          await tx.update(users).set({ phoneE164: input.phone_e164, updatedAt: new Date() }).where(eq(users.id, input.user_id));
        }
        if (becomesProvider || stopsBeingProvider) await invalidateAvailability(tx, ctx.clinic.id, [input.user_id]);
        return getMember(tx, ctx.clinic.id, input.user_id);
      });
    }),
} satisfies TRPCRouterRecord;

/** The user with that id or e-mail, created when absent. */
async function findOrCreateUser(db: Db, input: { email: string; user_id?: string | undefined; phone_e164?: string | undefined }): Promise<string> {
  const byId = input.user_id ? await db.select({ id: users.id }).from(users).where(eq(users.id, input.user_id)) : [];
  if (byId[0]) return byId[0].id;
  const [byEmail] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${input.email})`);
  if (byEmail) {
    if (input.user_id) {
      throw new DomainError("CONFLICT", "that e-mail belongs to another user than user_id", {
        errors: [{ path: "email", message: "belongs to another user" }],
      });
    }
    return byEmail.id;
  }
  const [created] = await db
    .insert(users)
    .values({ ...(input.user_id ? { id: input.user_id } : {}), email: input.email, phoneE164: input.phone_e164 ?? null })
    .returning({ id: users.id });
  if (!created) throw new Error("insert returned no row");
  return created.id;
}

/**
 * Refuses to take the provider flag from someone who still has active services assigned
 * (409 PROVIDER_HAS_SERVICES listing them): the services would silently lose their provider.
 */
export async function assertNoAssignedServices(db: Db, clinicId: string, userId: string): Promise<void> {
  const assigned = await db
    .select({ id: services.id })
    .from(services)
    .where(
      and(
        eq(services.clinicId, clinicId),
        eq(services.providerId, userId),
        eq(services.isActive, true),
        sql`${services.deletedAt} is null`,
      ),
    )
    .orderBy(asc(services.id));
  if (assigned.length > 0) {
    throw new DomainError("PROVIDER_HAS_SERVICES", `the provider still has ${assigned.length} active assigned service(s); reassign or deactivate them first`, {
      extra: { service_ids: assigned.map((s) => s.id) },
    });
  }
}
