import { and, eq, isNull, ne, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { clinicMembers, type Db, pgErrorInfo, users } from "@clinic/db";
import { DomainError } from "../../errors.ts";
import type { AuthUser, TokenClaims } from "./tokens.ts";

/**
 * Keeps the users table in step with token claims. A process remembers which (sub, email,
 * phone) it has already written, so an ordinary request costs no database write.
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
    const fingerprint = `${claims.email}|${claims.phone_number ?? ""}`;
    if (this.seen.get(claims.sub) === fingerprint) return user;
    await upsertUserFromClaims(db, claims);
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.set(claims.sub, fingerprint);
    return user;
  }
}

async function upsertUserFromClaims(db: Db, claims: TokenClaims): Promise<void> {
  const phone = claims.phone_number ?? null;
  const follow = { email: claims.email, phoneE164: sql`coalesce(${phone}::text, ${users.phoneE164})`, lastLoginAt: sql`now()` };
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
 * invited by e-mail (it never signed in), the invitation is this person's: the placeholder becomes
 * this identity (memberships, schedules and services follow by cascade), or, when this identity
 * exists already (it was also invited by id), the placeholder's memberships move to it and the
 * placeholder gives up the e-mail. An e-mail held by someone who has signed in is refused.
 */
async function claimInvitation(db: Db, claims: TokenClaims, follow: PgUpdateSetSource<typeof users>, cause: unknown): Promise<void> {
  await db.transaction(async (tx) => {
    const [placeholder] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(sql`lower(${users.email}) = lower(${claims.email})`, isNull(users.lastLoginAt), ne(users.id, claims.sub)))
      .for("update");
    if (!placeholder) throw new DomainError("UNAUTHENTICATED", "the token's email belongs to another identity", { cause });
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.id, claims.sub)).for("update");
    if (!existing) {
      await tx.update(users).set({ id: claims.sub, ...follow }).where(eq(users.id, placeholder.id));
      return;
    }
    await tx.execute(sql`
      update ${clinicMembers} set user_id = ${claims.sub}
      where ${clinicMembers.userId} = ${placeholder.id}
        and not exists (select 1 from ${clinicMembers} m where m.clinic_id = ${clinicMembers.clinicId} and m.user_id = ${claims.sub})`);
    await tx.update(users).set({ email: null }).where(eq(users.id, placeholder.id));
    await tx.update(users).set(follow).where(eq(users.id, claims.sub));
  });
}
