import { closures, type Db, services, workHours } from "@clinic/db";
import { addProvider, clinicFixture } from "./clinics.ts";

const minutesOf = (time: string) => {
  const [h = 0, m = 0] = time.split(":").map(Number);
  return h * 60 + m;
};

/** Fixed clock for availability tests: well before every date they query. */
export const pinnedNow = () => new Date("2027-03-01T00:00:00.000Z");

/** Weekly hours of the clinic (providerId null) or of a provider, inserted directly. */
export async function addHours(
  db: Db,
  clinicId: string,
  providerId: string | null,
  weekdays: number[],
  opens: string,
  closes: string,
): Promise<void> {
  await db.insert(workHours).values(
    weekdays.map((weekday) => ({
      clinicId,
      scope: providerId ? ("provider" as const) : ("clinic" as const),
      providerId,
      weekday,
      opensMin: minutesOf(opens),
      closesMin: minutesOf(closes),
    })),
  );
}

/** A service of the clinic; returns its id. */
export async function addService(
  db: Db,
  clinicId: string,
  options: {
    name?: string;
    durationMin?: number;
    providerId?: string | null;
    isActive?: boolean;
    deleted?: boolean;
  } = {},
) {
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

/** A closure of the clinic (providerId null) or of a provider. */
export async function addClosure(
  db: Db,
  clinicId: string,
  providerId: string | null,
  startsAt: string,
  endsAt: string,
): Promise<void> {
  await db.insert(closures).values({
    clinicId,
    scope: providerId ? "provider" : "clinic",
    providerId,
    startsAt: new Date(startsAt),
    endsAt: new Date(endsAt),
  });
}

/** A clinic open Mon–Fri 09:00–17:00 with one approved provider working the same hours. */
export async function bookableClinic(
  db: Db,
  options: { timezone?: string; hours?: { weekdays: number[]; opens: string; closes: string } } = {},
) {
  const fixture = await clinicFixture(db, options.timezone ? { timezone: options.timezone } : {});
  const provider = await addProvider(db, fixture.clinicId, "Anna Provider");
  const { weekdays, opens, closes } = options.hours ?? { weekdays: [1, 2, 3, 4, 5], opens: "09:00", closes: "17:00" };
  await addHours(db, fixture.clinicId, null, weekdays, opens, closes);
  await addHours(db, fixture.clinicId, provider.id, weekdays, opens, closes);
  return { ...fixture, provider };
}

/**
 * One person as the provider of two bookable clinics (§14): clinic A's provider joins clinic B
 * through the API, approved, working 09:00–17:00 in B on `weekdays`.
 */
export async function sharedProviderClinics(db: Db, weekdays: number[] = [1, 2, 3, 4, 5]) {
  const a = await bookableClinic(db);
  const b = await bookableClinic(db);
  const person = a.provider;
  await b.asAdmin.members.add({
    clinic_id: b.clinicId,
    email: person.email,
    user_id: person.id,
    full_name: "Anna in B",
    is_provider: true,
  });
  await b.asAdmin.providers.approve({ clinic_id: b.clinicId, user_id: person.id });
  await addHours(db, b.clinicId, person.id, weekdays, "09:00", "17:00");
  return { a, b, person };
}
