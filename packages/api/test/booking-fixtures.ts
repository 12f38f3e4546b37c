import { closures, type Db, services, workHours } from "@clinic/db";
import { addMember, clinicFixture } from "./helpers.ts";

const H = (h: number, m = 0) => h * 60 + m;

/** Fixed clock for availability tests: well before every date they query. */
export const pinnedNow = () => new Date("2027-03-01T00:00:00.000Z");

/** Inserts weekly hours directly (the work-hours API is tested on its own). */
export async function addHours(db: Db, clinicId: string, providerId: string | null, weekdays: number[], opens: string, closes: string): Promise<void> {
  const [oh = 0, om = 0] = opens.split(":").map(Number);
  const [ch = 0, cm = 0] = closes.split(":").map(Number);
  await db.insert(workHours).values(
    weekdays.map((weekday) => ({
      clinicId,
      scope: providerId ? ("provider" as const) : ("clinic" as const),
      providerId,
      weekday,
      opensMin: H(oh, om),
      closesMin: H(ch, cm),
    })),
  );
}

export async function addService(db: Db, clinicId: string, options: { name?: string; durationMin?: number; providerId?: string | null; isActive?: boolean; deleted?: boolean } = {}) {
  const [row] = await db
    .insert(services)
    .values({
      clinicId,
      name: options.name ?? "Consultation",
      durationMin: options.durationMin ?? 30,
      providerId: options.providerId ?? null,
      isActive: options.isActive ?? true,
      deletedAt: options.deleted ? new Date() : null,
    })
    .returning();
  if (!row) throw new Error("no service");
  return row.id;
}

export async function addClosure(db: Db, clinicId: string, providerId: string | null, startsAt: string, endsAt: string): Promise<void> {
  await db.insert(closures).values({ clinicId, scope: providerId ? "provider" : "clinic", providerId, startsAt: new Date(startsAt), endsAt: new Date(endsAt) });
}

/** A clinic open Mon–Fri 09:00–17:00 with one approved provider working the same hours. */
export async function bookableClinic(db: Db, options: { timezone?: string } = {}) {
  const fixture = await clinicFixture(db, options);
  const provider = await addMember(db, fixture.clinicId, { isProvider: true, status: "approved", fullName: "Anna Provider" });
  await addHours(db, fixture.clinicId, null, [1, 2, 3, 4, 5], "09:00", "17:00");
  await addHours(db, fixture.clinicId, provider.id, [1, 2, 3, 4, 5], "09:00", "17:00");
  return { ...fixture, provider };
}
