import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DbHandle } from "../src/index.ts";
import { clinicMembers, clinics, migrate, pgErrorInfo, users, workHours, appointments, services } from "../src/index.ts";
import { openTestDatabase } from "../src/testing.ts";

let handle: DbHandle;
beforeAll(async () => {
  handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
});
afterAll(async () => {
  await handle.close();
});

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

async function clinicWithProvider() {
  const [clinic] = await handle.db.insert(clinics).values({ name: "Schema test" }).returning();
  const [user] = await handle.db.insert(users).values({ email: `${crypto.randomUUID()}@test.example` }).returning();
  if (!clinic || !user) throw new Error("insert returned nothing");
  await handle.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: user.id, fullName: "P", isProvider: true });
  return { clinicId: clinic.id, userId: user.id };
}

describe("schema", () => {
  it("re-running the migrations is a no-op", async () => {
    expect(await migrate(handle.db)).toEqual([]);
  });

  it("refuses overlapping work hours of one owner and weekday, allows adjacent ones", async () => {
    const { clinicId, userId } = await clinicWithProvider();
    await handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 540, closesMin: 720 });
    await handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 720, closesMin: 780 });
    // Same times for the provider scope do not collide with the clinic's.
    await handle.db.insert(workHours).values({ clinicId, scope: "provider", providerId: userId, weekday: 1, opensMin: 540, closesMin: 720 });
    const error = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 1, opensMin: 660, closesMin: 700 }),
    );
    expect(pgErrorInfo(error)).toEqual({ code: "23P01", constraint: "work_hours_no_overlap" });
  });

  it("refuses closing not after opening and weekdays outside 1-7", async () => {
    const { clinicId } = await clinicWithProvider();
    const backwards = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 2, opensMin: 600, closesMin: 600 }),
    );
    expect(pgErrorInfo(backwards)).toEqual({ code: "23514", constraint: "work_hours_time_range" });
    const weekday = await errorOf(
      handle.db.insert(workHours).values({ clinicId, scope: "clinic", weekday: 8, opensMin: 600, closesMin: 660 }),
    );
    expect(pgErrorInfo(weekday)?.constraint).toBe("work_hours_weekday_range");
  });

  it("refuses a double booking of one provider but not after a cancel", async () => {
    const { clinicId, userId } = await clinicWithProvider();
    const [service] = await handle.db.insert(services).values({ clinicId, name: "S", durationMin: 30, providerId: userId }).returning();
    if (!service) throw new Error("no service");
    const base = { clinicId, serviceId: service.id, providerId: userId, patientName: "X" };
    const [first] = await handle.db
      .insert(appointments)
      .values({ ...base, startsAt: new Date("2030-01-07T09:00:00Z"), endsAt: new Date("2030-01-07T09:30:00Z") })
      .returning();
    const error = await errorOf(
      handle.db.insert(appointments).values({ ...base, startsAt: new Date("2030-01-07T09:15:00Z"), endsAt: new Date("2030-01-07T09:45:00Z") }),
    );
    expect(pgErrorInfo(error)).toEqual({ code: "23P01", constraint: "appointments_no_double_booking" });
    if (!first) throw new Error("no appointment");
    await handle.db.execute(sql`update appointments set status = 'canceled', canceled_at = now() where id = ${first.id}`);
    await handle.db
      .insert(appointments)
      .values({ ...base, startsAt: new Date("2030-01-07T09:15:00Z"), endsAt: new Date("2030-01-07T09:45:00Z") });
  });

  it("refuses a service provider who is not a member of the clinic", async () => {
    const { userId } = await clinicWithProvider();
    const other = await clinicWithProvider();
    const error = await errorOf(
      handle.db.insert(services).values({ clinicId: other.clinicId, name: "S", durationMin: 30, providerId: userId }),
    );
    expect(pgErrorInfo(error)).toEqual({ code: "23503", constraint: "services_provider_fk" });
  });

  it("keeps millisecond precision of instants", async () => {
    const [clinic] = await handle.db.insert(clinics).values({ name: "ms" }).returning();
    if (!clinic) throw new Error("no clinic");
    const at = new Date("2026-11-22T08:15:30.123Z");
    const [updated] = await handle.db.update(clinics).set({ updatedAt: at }).where(sql`id = ${clinic.id}`).returning();
    expect(updated?.updatedAt.toISOString()).toBe("2026-11-22T08:15:30.123Z");
  });
});
