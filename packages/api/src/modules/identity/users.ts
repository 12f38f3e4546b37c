import { and, eq, isNull, ne, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import {
  appointments,
  calendarBusy,
  calendarFeeds,
  calendars,
  clinicMembers,
  closures,
  dateOverrides,
  type Db,
  pgErrorInfo,
  services,
  upsertStamp,
  users,
  workHours,
} from "@clinic/db";
import { invalidateAvailability } from "../availability/index.ts";
import { refreshSharedProvider } from "../members/index.ts";
import { DomainError } from "../../errors.ts";
import type { AuthUser, TokenClaims } from "./tokens.ts";

/**
 * Keeps the users table in step with token claims. A process remembers the token it last wrote
 * for each sub (its e-mail, phone, iat and exp), so an ordinary request costs no database write,
 * and a new token is written once even when its claims equal ones this process wrote before:
 * another process may have written a newer token's claims since.
 */
export class UserProvisioner {
  private readonly seen = new Map<string, string>();

  constructor(private readonly maxEntries = 10_000) {}

  /** Ensures the user row exists and follows the latest claims; returns the caller. */
  async provision(db: Db, claims: TokenClaims): Promise<AuthUser> {
    const user: AuthUser = {
      id: claims.sub,
      email: claims.email,
      phoneE164: claims.phone_number ?? null,
      isAdmin: claims.roles?.includes("ADMIN") ?? false,
    };
    const fingerprint = `${claims.email}|${claims.phone_number ?? ""}|${claims.iat ?? ""}|${claims.exp ?? ""}`;
    if (this.seen.get(claims.sub) === fingerprint) return user;
    await upsertUserFromClaims(db, claims);
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.set(claims.sub, fingerprint);
    return user;
  }
}

async function upsertUserFromClaims(db: Db, claims: TokenClaims): Promise<void> {
  const phone = claims.phone_number ?? null;
  // Upsert SETs take the inserted row's now() from `excluded` (docs/scale-out.md#queries).
  const follow = {
    email: claims.email,
    phoneE164: sql`coalesce(${phone}::text, ${users.phoneE164})`,
    lastLoginAt: sql`excluded.last_login_at`,
    updatedAt: upsertStamp("users"),
  };
  try {
    await db
      .insert(users)
      .values({ id: claims.sub, email: claims.email, phoneE164: phone, lastLoginAt: sql`now()` })
      .onConflictDoUpdate({ target: users.id, set: follow });
  } catch (error) {
    if (pgErrorInfo(error)?.constraint !== "users_email_key") throw error;
    await claimInvitation(db, claims, follow, error);
  }
}

/**
 * The token's e-mail is held by another user. If that user is a placeholder a clinic admin
 * invited by e-mail (it never signed in), the invitation is this person's: the e-mail, and the
 * placeholder's memberships with everything that names them as provider, move to this identity
 * (each membership keeps its id); a membership in a clinic where this identity is a member
 * already stays with the placeholder. An e-mail held by someone who has signed in is refused, and so
 * is one the token's issuer does not call verified (`email_verified: true`): anyone can claim any
 * address at a lax identity provider, and the placeholder's clinics would be theirs (issue 47).
 *
 * The rows are moved by hand rather than by ON UPDATE CASCADE, which a distributed database
 * refuses on keys that include the clinic (docs/scale-out.md).
 */
async function claimInvitation(
  db: Db,
  claims: TokenClaims,
  follow: PgUpdateSetSource<typeof users>,
  cause: unknown,
): Promise<void> {
  if (claims.email_verified !== true)
    throw new DomainError(
      "UNAUTHENTICATED",
      "the token's email belongs to another identity, and its issuer does not say the email is verified",
      { cause },
    );
  await db.transaction(async (tx) => {
    const [placeholder] = await tx
      .select({ id: users.id })
      .from(users)
      .where(
        and(sql`lower(${users.email}) = lower(${claims.email})`, isNull(users.lastLoginAt), ne(users.id, claims.sub)),
      )
      .for("update");
    if (!placeholder)
      throw new DomainError("UNAUTHENTICATED", "the token's email belongs to another identity", { cause });
    await tx.update(users).set({ email: null }).where(eq(users.id, placeholder.id));
    await tx
      .insert(users)
      .values({ id: claims.sub, email: claims.email, phoneE164: claims.phone_number ?? null, lastLoginAt: sql`now()` })
      .onConflictDoUpdate({ target: users.id, set: follow });
    const memberships = await tx
      .select({ id: clinicMembers.id, clinicId: clinicMembers.clinicId })
      .from(clinicMembers)
      .where(eq(clinicMembers.userId, placeholder.id));
    let kept = 0;
    for (const membership of memberships) {
      if (await moveMembership(tx, membership, placeholder.id, claims.sub)) continue;
      kept += 1;
    }
    // The appointments moved with the memberships: who is a provider of several clinics now.
    await refreshSharedProvider(tx, placeholder.id);
    await refreshSharedProvider(tx, claims.sub);
    if (kept === 0) await tx.delete(users).where(eq(users.id, placeholder.id));
  });
}

/** The tables whose (clinic_id, provider_id) names a member as provider. */
const providerTables = [
  appointments,
  services,
  workHours,
  closures,
  dateOverrides,
  calendarFeeds,
  // A provider's own calendars and their busy time (docs/calendars.md).
  calendars,
  calendarBusy,
] as const;

/**
 * Moves one membership from user `from` to user `to` within its clinic, keeping its id: a copy
 * for `to` is inserted, the rows naming `from` as provider follow it, the original is deleted
 * and the copy takes the original's id. False when `to` is a member of that clinic already.
 */
async function moveMembership(
  tx: Db,
  membership: { id: string; clinicId: string },
  from: string,
  to: string,
): Promise<boolean> {
  const { clinicId } = membership;
  const [original] = await tx
    .select()
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.id, membership.id)));
  if (!original) return false;
  const { id: originalId, ...fields } = original;
  const [copy] = await tx
    .insert(clinicMembers)
    .values({ ...fields, userId: to })
    .onConflictDoNothing({ target: [clinicMembers.clinicId, clinicMembers.userId] })
    .returning({ id: clinicMembers.id });
  if (!copy) return false;
  for (const table of providerTables) {
    await tx
      .update(table)
      .set({ providerId: to })
      .where(and(eq(table.clinicId, clinicId), eq(table.providerId, from)));
  }
  await tx
    .update(appointments)
    .set({ patientUserId: to })
    .where(and(eq(appointments.clinicId, clinicId), eq(appointments.patientUserId, from)));
  await tx.delete(clinicMembers).where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.id, originalId)));
  await tx
    .update(clinicMembers)
    .set({ id: originalId, updatedAt: original.updatedAt })
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.id, copy.id)));
  await invalidateAvailability(tx, clinicId, [clinicId, from, to]);
  return true;
}
