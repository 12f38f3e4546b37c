import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, clinicMembers, memberStatuses, services, users } from "@clinic/db";
import { DomainError, notFound, returnedRow } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { refreshSharedProvider } from "./shared.ts";

/** The user-to-clinic membership as the API shows it. */
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
  /** A provider's daily limit (CONTRACT §8 v1.4): appointments per clinic-local date; null = none. */
  max_daily_appointments: z.number().int().nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type MemberView = z.infer<typeof memberOutput>;

/**
 * Whether the user's latest token is newer than the membership: their token's e-mail and phone
 * are then the latest word on them. Until then the membership shows what its clinic sent (M1),
 * so linking a person who has signed in discloses nothing of theirs (docs/providers-services.md).
 */
const tokenIsNewer = sql`${users.lastLoginAt} > ${clinicMembers.createdAt}`;

/** A member's e-mail: the user's, from their latest token (contract §3, §4). */
export const memberEmail = sql<string>`case when ${tokenIsNewer} then coalesce(${users.email}, ${clinicMembers.email}) else ${clinicMembers.email} end`;

/** A member's phone: the membership's own (set when added, M1, or changed, M3), else the user's, from their latest token. */
export const memberPhone = sql<
  string | null
>`coalesce(${clinicMembers.phoneE164}, case when ${tokenIsNewer} then ${users.phoneE164} end)`;

/** The one column list of a member: the membership, with the user's contact details. */
export const memberColumns = {
  id: clinicMembers.id,
  clinicId: clinicMembers.clinicId,
  userId: clinicMembers.userId,
  fullName: clinicMembers.fullName,
  email: memberEmail,
  phoneE164: memberPhone,
  isProvider: clinicMembers.isProvider,
  clinicRole: clinicMembers.clinicRole,
  status: clinicMembers.status,
  notes: clinicMembers.notes,
  maxDailyAppointments: clinicMembers.maxDailyAppointments,
  createdAt: clinicMembers.createdAt,
  updatedAt: clinicMembers.updatedAt,
};

/** Members, joined with their user; add `.where(...)`. */
export function selectMembers(db: Db) {
  return db.select(memberColumns).from(clinicMembers).innerJoin(users, eq(users.id, clinicMembers.userId)).$dynamic();
}
export type MemberRow = Awaited<ReturnType<typeof selectMembers>>[number];

export const toMember = (row: MemberRow): MemberView => ({
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
  max_daily_appointments: row.maxDailyAppointments,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Members (and providers) are listed by full name, then membership id. */
export const memberPages = keyset<MemberRow>(
  "asc",
  { column: clinicMembers.fullName, kind: "text", of: (r) => r.fullName },
  { column: clinicMembers.id, kind: "uuid", of: (r) => r.id },
);

/** One member of a clinic by user id; 404 when the user is not a member of that clinic. */
export async function getMember(db: Db, clinicId: string, userId: string): Promise<MemberView> {
  const [row] = await selectMembers(db).where(
    and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)),
  );
  if (!row) throw notFound("member");
  return toMember(row);
}

/** The clinic's members by full name, keyset-paginated. */
export async function listMembers(db: Db, clinicId: string, page: { limit: number; cursor?: string | undefined }) {
  const rows = await selectMembers(db)
    .where(and(eq(clinicMembers.clinicId, clinicId), memberPages.after(page.cursor)))
    .orderBy(...memberPages.orderBy)
    .limit(page.limit + 1);
  const { items, next_cursor } = memberPages.page(rows, page.limit);
  return { members: items.map(toMember), next_cursor };
}

export interface NewMember {
  email: string;
  full_name: string;
  user_id?: string | undefined;
  phone_e164?: string | undefined;
  clinic_role: string;
  is_provider: boolean;
  notes?: string | null | undefined;
}

/**
 * The user a new membership links to: the one with `user_id` when given (created when absent),
 * else the one with that e-mail (created when absent). Nothing about an existing user is read
 * back into the membership, so linking discloses nothing the caller did not send, and no answer
 * depends on whether an e-mail is registered elsewhere.
 */
async function userToLink(db: Db, input: { email: string; user_id?: string | undefined }): Promise<string> {
  if (input.user_id) {
    // A new identity invited by id keeps the e-mail for later invitations by e-mail, unless
    // another user holds it; its own first token sets the e-mail either way.
    await db.insert(users).values({ id: input.user_id, email: input.email }).onConflictDoNothing();
    await db.insert(users).values({ id: input.user_id, email: null }).onConflictDoNothing();
    return input.user_id;
  }
  const byEmail = () =>
    db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.email}) = lower(${input.email})`);
  const [found] = await byEmail();
  if (found) return found.id;
  await db.insert(users).values({ email: input.email }).onConflictDoNothing();
  const [created] = await byEmail();
  return returnedRow(created ? [created] : [], "user").id;
}

/** Adds a member: links the user with that id or e-mail, else creates them; a new provider starts pending. */
export async function addMember(db: Db, clinicId: string, input: NewMember): Promise<MemberView> {
  return db.transaction(async (tx) => {
    const userId = await userToLink(tx, input);
    const [existing] = await tx
      .select({ id: clinicMembers.id })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
    if (existing) throw new DomainError("ALREADY_MEMBER", "the user is already a member of this clinic");
    await tx.insert(clinicMembers).values({
      clinicId,
      userId,
      fullName: input.full_name,
      email: input.email,
      phoneE164: input.phone_e164 ?? null,
      clinicRole: input.clinic_role,
      isProvider: input.is_provider,
      status: input.is_provider ? "pending" : "approved",
      notes: input.notes ?? null,
    });
    // A new provider is a new candidate of the clinic's unassigned services.
    if (input.is_provider) {
      await invalidateAvailability(tx, clinicId, [clinicId, userId]);
      await refreshSharedProvider(tx, userId);
    }
    return getMember(tx, clinicId, userId);
  });
}

export interface MemberPatch {
  full_name?: string | undefined;
  phone_e164?: string | null | undefined;
  clinic_role?: string | undefined;
  is_provider?: boolean | undefined;
  notes?: string | null | undefined;
  max_daily_appointments?: number | null | undefined;
}

/**
 * Updates a member. Setting is_provider true on a non-provider makes them pending; taking the
 * flag away is refused while they have active services assigned (PROVIDER_HAS_SERVICES).
 */
export async function updateMember(db: Db, clinicId: string, userId: string, patch: MemberPatch): Promise<MemberView> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ isProvider: clinicMembers.isProvider, status: clinicMembers.status })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)))
      .for("update");
    if (!current) throw notFound("member");
    const becomesProvider = patch.is_provider === true && !current.isProvider;
    const stopsBeingProvider = patch.is_provider === false && current.isProvider;
    if (stopsBeingProvider) await assertNoAssignedServices(tx, clinicId, userId);
    const set = {
      ...(patch.full_name !== undefined ? { fullName: patch.full_name } : {}),
      ...(patch.clinic_role !== undefined ? { clinicRole: patch.clinic_role } : {}),
      ...(patch.is_provider !== undefined ? { isProvider: patch.is_provider } : {}),
      ...(becomesProvider ? { status: "pending" as const } : {}),
      ...(stopsBeingProvider ? { status: "approved" as const } : {}),
      ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
      ...(patch.phone_e164 !== undefined ? { phoneE164: patch.phone_e164 } : {}),
      ...(patch.max_daily_appointments !== undefined ? { maxDailyAppointments: patch.max_daily_appointments } : {}),
    };
    // An empty PATCH changes nothing and writes nothing, so updated_at stays (an empty SET is no SQL).
    if (Object.keys(set).length === 0) return getMember(tx, clinicId, userId);
    await tx
      .update(clinicMembers)
      .set(set)
      .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
    // The clinic scope too: the candidates of its unassigned services are not what they were.
    if (becomesProvider || stopsBeingProvider) {
      await invalidateAvailability(tx, clinicId, [clinicId, userId]);
      await refreshSharedProvider(tx, userId);
    } else if (current.isProvider && (patch.full_name !== undefined || patch.max_daily_appointments !== undefined)) {
      // A provider's name ranks the any-provider candidates and their daily limit removes slots, and
      // a booking's read keeps both with the provider's schedule version (modules/availability/context.ts).
      await invalidateAvailability(tx, clinicId, [userId]);
    }
    return getMember(tx, clinicId, userId);
  });
}

/**
 * The per-clinic full name of `userId` when they are a provider (`is_provider` true) of this
 * clinic; otherwise `whenMissing`: 422 NOT_A_PROVIDER where the id was an input naming a provider,
 * 404 where it names the resource of the path. With `lock`, the membership row is share-locked
 * until the caller's transaction ends, so a concurrent provider removal (which locks it for update,
 * then checks for assigned services) cannot slip between this check and the caller's write.
 */
export async function requireProvider(
  db: Db,
  clinicId: string,
  userId: string,
  whenMissing: "NOT_A_PROVIDER" | "NOT_FOUND",
  options: { lock?: boolean } = {},
): Promise<string> {
  const query = db
    .select({ fullName: clinicMembers.fullName })
    .from(clinicMembers)
    .where(
      and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId), eq(clinicMembers.isProvider, true)),
    );
  const [row] = await (options.lock ? query.for("share") : query);
  if (row) return row.fullName;
  if (whenMissing === "NOT_FOUND") throw notFound("provider");
  throw new DomainError("NOT_A_PROVIDER", `provider_id ${userId} is not the user id of a provider of this clinic`, {
    errors: [{ path: "provider_id", message: "must be the user id of a member with is_provider true in this clinic" }],
  });
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
        isNull(services.deletedAt),
      ),
    )
    .orderBy(asc(services.id));
  if (assigned.length > 0) {
    throw new DomainError(
      "PROVIDER_HAS_SERVICES",
      `the provider still has ${assigned.length} active assigned service(s); reassign or deactivate them first`,
      {
        extra: { service_ids: assigned.map((s) => s.id) },
      },
    );
  }
}
