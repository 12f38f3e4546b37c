import { and, eq, lt, or } from "drizzle-orm";
import { type Db, sessions, users } from "@clinic/db";
import type { AuthUser } from "../identity/index.ts";
import { hashOf, randomToken } from "./secrets.ts";

export type SignInMethod = "oidc" | "email";

/** The lifetimes of a session (SESSION_IDLE_S, SESSION_TTL_S). */
export interface SessionLimits {
  idleS: number;
  ttlS: number;
}

/** A valid session, as a request sees it. */
export interface SessionView {
  idHash: string;
  user: AuthUser;
  fullName: string | null;
  method: SignInMethod;
  /** The earlier of the idle and the absolute end, as of this request. */
  expiresAt: Date;
  /** The encrypted ID token (RP-initiated logout's hint), if any. */
  idToken: string | null;
}

/** last_seen_at moves at most this often: a session check is then a read, not a write. */
const touchEveryMs = 60_000;

/**
 * Starts a session for `userId`: a new opaque id (256 bits) every time, so no id chosen before the
 * sign-in survives it (no fixation). Returns the id for the cookie; only its hash is stored.
 * `encryptIdToken` gets the session's id hash (the additional data of the encryption).
 */
export async function createSession(
  db: Db,
  params: {
    userId: string;
    method: SignInMethod;
    isAdmin?: boolean;
    fullName?: string | null;
    encryptIdToken?: ((idHash: string) => string) | undefined;
    now: Date;
    limits: SessionLimits;
  },
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomToken();
  const idHash = hashOf(id);
  const expiresAt = new Date(params.now.getTime() + params.limits.ttlS * 1000);
  await db.insert(sessions).values({
    idHash,
    userId: params.userId,
    method: params.method,
    isAdmin: params.isAdmin ?? false,
    fullName: params.fullName ?? null,
    idToken: params.encryptIdToken ? params.encryptIdToken(idHash) : null,
    createdAt: params.now,
    lastSeenAt: params.now,
    expiresAt,
  });
  // Now and then, from a sign-in: sessions that ended long ago are of no use to anyone.
  if (Math.random() < 0.02) await pruneSessions(db, params.now, params.limits);
  return { id, expiresAt: new Date(Math.min(expiresAt.getTime(), params.now.getTime() + params.limits.idleS * 1000)) };
}

/** Deletes sessions that ended (idle or absolute) more than a day ago. */
export async function pruneSessions(db: Db, now: Date, limits: SessionLimits): Promise<void> {
  const dayAgo = now.getTime() - 86_400_000;
  await db
    .delete(sessions)
    .where(
      or(lt(sessions.expiresAt, new Date(dayAgo)), lt(sessions.lastSeenAt, new Date(dayAgo - limits.idleS * 1000))),
    );
}

/**
 * The session of a cookie's id, or null when there is none or it has ended. One lookup by the
 * primary key joined with the user (both reference tables on Citus: local on every node); the
 * roles of the user are not here but read by each procedure as for a token. `last_seen_at` is
 * written only when it is a minute old, so the idle end is exact to within that minute.
 */
export async function sessionOf(db: Db, id: string, now: Date, limits: SessionLimits): Promise<SessionView | null> {
  if (id.length === 0 || id.length > 200) return null;
  const idHash = hashOf(id);
  const [row] = await db
    .select({
      userId: sessions.userId,
      method: sessions.method,
      isAdmin: sessions.isAdmin,
      fullName: sessions.fullName,
      idToken: sessions.idToken,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      email: users.email,
      phoneE164: users.phoneE164,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.idHash, idHash));
  if (!row) return null;
  const nowMs = now.getTime();
  const idleEndMs = row.lastSeenAt.getTime() + limits.idleS * 1000;
  if (row.expiresAt.getTime() <= nowMs || idleEndMs <= nowMs) return null;
  let seenMs = row.lastSeenAt.getTime();
  if (nowMs - seenMs >= touchEveryMs) {
    await db
      .update(sessions)
      .set({ lastSeenAt: now })
      .where(and(eq(sessions.idHash, idHash), lt(sessions.lastSeenAt, now)));
    seenMs = nowMs;
  }
  const method: SignInMethod = row.method === "oidc" ? "oidc" : "email";
  return {
    idHash,
    user: { id: row.userId, email: row.email ?? "", phoneE164: row.phoneE164, isAdmin: row.isAdmin },
    fullName: row.fullName,
    method,
    expiresAt: new Date(Math.min(row.expiresAt.getTime(), seenMs + limits.idleS * 1000)),
    idToken: row.idToken,
  };
}

/** Ends one session (S3); returns its user and encrypted ID token when there was one. */
export async function endSession(
  db: Db,
  id: string,
): Promise<{ idHash: string; userId: string; method: string; idToken: string | null } | null> {
  const idHash = hashOf(id);
  const [row] = await db
    .delete(sessions)
    .where(eq(sessions.idHash, idHash))
    .returning({ userId: sessions.userId, method: sessions.method, idToken: sessions.idToken });
  return row ? { idHash, ...row } : null;
}

/**
 * Ends every session of a user: S3 with `everywhere=true`, and a user whose account is erased
 * (the rows also go with the user by their foreign key). Returns how many ended.
 */
export async function endSessionsOfUser(db: Db, userId: string): Promise<number> {
  const rows = await db.delete(sessions).where(eq(sessions.userId, userId)).returning({ idHash: sessions.idHash });
  return rows.length;
}
