import { and, eq, sql } from "drizzle-orm";
import { type Db, identities, pgErrorInfo, users } from "@clinic/db";

/** What an ID token says about the person (§22 "who is who"). */
export interface IdentityClaims {
  issuer: string;
  /** Any string the issuer chose: `sub` need not be a UUID. */
  subject: string;
  email: string | null;
  /** The issuer's `email_verified` claim is exactly `true`. */
  emailVerified: boolean;
}

const isEmailTaken = (error: unknown) => pgErrorInfo(error)?.constraint === "users_email_key";

/** The user holding `email` (ignoring case), if any. */
async function userWithEmail(db: Db, email: string): Promise<string | null> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row?.id ?? null;
}

/**
 * A new user holding `email`, or null when another user holds it already (the unique index on the
 * lower-cased address decides; the insert runs in a transaction of its own, a savepoint inside
 * the caller's, so a refusal leaves the caller's transaction usable).
 */
async function insertUserWithEmail(db: Db, email: string, now: Date): Promise<string | null> {
  try {
    const [row] = await db.transaction(async (tx) =>
      tx.insert(users).values({ email, lastLoginAt: now }).returning({ id: users.id }),
    );
    return row?.id ?? null;
  } catch (error) {
    if (!isEmailTaken(error)) throw error;
    return null;
  }
}

/** A new user; with `email` unless another user holds it (then none). */
async function createUser(db: Db, email: string | null, now: Date): Promise<string> {
  if (email !== null) {
    const id = await insertUserWithEmail(db, email, now);
    if (id !== null) return id;
  }
  const [row] = await db.insert(users).values({ email: null, lastLoginAt: now }).returning({ id: users.id });
  if (!row) throw new Error("the insert of a user returned no row");
  return row.id;
}

/** A later verified e-mail of an identity updates its user's, unless another user holds it. */
async function followEmail(db: Db, userId: string, email: string, now: Date): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await tx.update(users).set({ email, lastLoginAt: now }).where(eq(users.id, userId));
    });
  } catch (error) {
    if (!isEmailTaken(error)) throw error;
    await db.update(users).set({ lastLoginAt: now }).where(eq(users.id, userId));
  }
}

/**
 * The user an identity (issuer, sub) is (§22 "who is who"). Known identity: its user (a verified
 * e-mail updates the user's). First sign-in: with `email_verified: true`, the user holding that
 * e-mail (ignoring case) — a member M1 added before they ever signed in keeps their id — else a
 * new user; an unverified e-mail never joins an existing user, and the new user holds the address
 * only when no other user does. Two first sign-ins of one identity at once end on one user.
 */
export async function userForIdentity(db: Db, claims: IdentityClaims, now: Date): Promise<string> {
  const known = async () => {
    const [row] = await db
      .select({ userId: identities.userId })
      .from(identities)
      .where(and(eq(identities.issuer, claims.issuer), eq(identities.subject, claims.subject)));
    return row?.userId ?? null;
  };
  const existing = await known();
  if (existing) {
    if (claims.email && claims.emailVerified) await followEmail(db, existing, claims.email, now);
    else await db.update(users).set({ lastLoginAt: now }).where(eq(users.id, existing));
    return existing;
  }
  let userId: string | null = null;
  let created = false;
  if (claims.email && claims.emailVerified) userId = await userWithEmail(db, claims.email);
  if (userId === null) {
    userId = await createUser(db, claims.email, now);
    created = true;
  } else {
    await db.update(users).set({ lastLoginAt: now }).where(eq(users.id, userId));
  }
  const [linked] = await db
    .insert(identities)
    .values({ issuer: claims.issuer, subject: claims.subject, userId, createdAt: now })
    .onConflictDoNothing()
    .returning({ userId: identities.userId });
  if (linked) return linked.userId;
  // Another sign-in of this identity linked it first: that user it is (ours, if new, is unused).
  const winner = await known();
  if (winner === null) throw new Error("the identity was neither linked nor found");
  if (created) await db.delete(users).where(eq(users.id, userId));
  return winner;
}

/**
 * The user an e-mailed code signs in (a code is verified by being received, §22): the user holding
 * the address (ignoring case), else a new one with it.
 */
export async function userForEmail(db: Db, email: string, now: Date): Promise<string> {
  const existing = await userWithEmail(db, email);
  if (existing) {
    await db.update(users).set({ lastLoginAt: now }).where(eq(users.id, existing));
    return existing;
  }
  const created = await insertUserWithEmail(db, email, now);
  if (created !== null) return created;
  // Created by a concurrent sign-in of the same address.
  const raced = await userWithEmail(db, email);
  if (raced === null) throw new Error("the user of the address was neither created nor found");
  return raced;
}
