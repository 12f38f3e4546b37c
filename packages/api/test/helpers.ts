import { afterAll, beforeAll, inject } from "vitest";
import { clinicMembers, clinics, type Db, type DbHandle, users } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";
import type { AuthUser } from "../src/auth.ts";
import { createContextInner } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";

const createCaller = createCallerFactory(appRouter);

/** Opens this test file's database (PGlite template or the PostgreSQL server) for the whole file. */
export function useTestDatabase(): { readonly db: Db; readonly handle: DbHandle } {
  let handle: DbHandle | undefined;
  beforeAll(async () => {
    handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get db() {
      if (!handle) throw new Error("database not open yet");
      return handle.db;
    },
    get handle() {
      if (!handle) throw new Error("database not open yet");
      return handle;
    },
  };
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A user row plus the AuthUser a token for it would produce. */
export async function createUser(db: Db, options: { admin?: boolean; email?: string } = {}): Promise<AuthUser> {
  const email = options.email ?? `user-${unique()}@test.example`;
  const [row] = await db.insert(users).values({ email }).returning();
  if (!row) throw new Error("no user");
  return { id: row.id, email: row.email, phoneE164: null, isAdmin: options.admin ?? false };
}

export async function createClinic(db: Db, options: { timezone?: string; name?: string } = {}): Promise<string> {
  const [row] = await db
    .insert(clinics)
    .values({ name: options.name ?? `Clinic ${unique()}`, timezone: options.timezone ?? "UTC" })
    .returning();
  if (!row) throw new Error("no clinic");
  return row.id;
}

export interface MemberOptions {
  role?: string;
  isProvider?: boolean;
  status?: "approved" | "pending" | "suspended";
  fullName?: string;
  email?: string;
}

/** Adds a new user to the clinic with the given role / provider flag and returns them. */
export async function addMember(db: Db, clinicId: string, options: MemberOptions = {}): Promise<AuthUser> {
  const user = await createUser(db, options.email ? { email: options.email } : {});
  await db.insert(clinicMembers).values({
    clinicId,
    userId: user.id,
    fullName: options.fullName ?? `Member ${unique()}`,
    clinicRole: options.role ?? "STAFF",
    isProvider: options.isProvider ?? false,
    status: options.status ?? "approved",
  });
  return user;
}

/** A tRPC caller acting as `user` (null = unauthenticated), through the real middleware chain. */
export function callerFor(db: Db, user: AuthUser | null, options: { now?: () => Date } = {}) {
  return createCaller(createContextInner({ db, user, ...(options.now ? { now: options.now } : {}) }));
}

/** A clinic with an admin, a staff member and a custom-role member, each with a caller. */
export async function clinicFixture(db: Db, options: { timezone?: string } = {}) {
  const clinicId = await createClinic(db, options);
  const admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Admin Person" });
  const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Staff Person" });
  const custom = await addMember(db, clinicId, { role: "BOOKING_AGENT", fullName: "Agent Person" });
  return {
    clinicId,
    admin,
    staff,
    custom,
    asAdmin: callerFor(db, admin),
    asStaff: callerFor(db, staff),
    asCustom: callerFor(db, custom),
  };
}

/** The contract code of whatever the promise rejected with (fails the test when it resolves). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (typeof error === "object" && error !== null && "domainCode" in error && typeof error.domainCode === "string") return error.domainCode;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** The rejection itself, for assertions on detail and extra members. */
export async function rejectionOf(promise: Promise<unknown>): Promise<{ domainCode: string; message: string; extra?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (typeof error === "object" && error !== null && "domainCode" in error) {
      return error as { domainCode: string; message: string; extra?: Record<string, unknown> };
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}
