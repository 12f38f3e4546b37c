import { clinicMembers, clinics, type Db } from "@clinic/db";
import { createContextInner } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import { type TestUser, createUser, unique } from "./people.ts";

const createCaller = createCallerFactory(appRouter);

/** A tRPC caller acting as `user` (null = unauthenticated), through the real middleware chain. */
export function callerFor(db: Db, user: TestUser | null, options: { now?: () => Date } = {}) {
  return createCaller(createContextInner({ db, user, ...(options.now ? { now: options.now } : {}) }));
}

/** A clinic row; returns its id. */
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

/** A new user who is a member of the clinic with the given role / provider flag / status. */
export async function addMember(db: Db, clinicId: string, options: MemberOptions = {}): Promise<TestUser> {
  const user = await createUser(db, options.email ? { email: options.email } : {});
  await db.insert(clinicMembers).values({
    clinicId,
    userId: user.id,
    fullName: options.fullName ?? `Member ${unique()}`,
    email: user.email,
    clinicRole: options.role ?? "STAFF",
    isProvider: options.isProvider ?? false,
    status: options.status ?? "approved",
  });
  return user;
}

/** An approved provider of the clinic (a STAFF member with the provider flag). */
export const addProvider = (
  db: Db,
  clinicId: string,
  fullName: string,
  options: Omit<MemberOptions, "isProvider" | "fullName"> = {},
) => addMember(db, clinicId, { ...options, isProvider: true, fullName });

/** A clinic with a CLINIC_ADMIN, a STAFF member and a custom-role member, each with a caller. */
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
