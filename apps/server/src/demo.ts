import { asc, eq, sql } from "drizzle-orm";
import { Temporal } from "temporal-polyfill";
import { type AuthUser, appRouter, createCallerFactory, createContextInner, mintToken } from "@clinic/api";
import { clinicMembers, clinics, type Db, users } from "@clinic/db";
import type { DevUser } from "./web.ts";

/** Fixed identities of the demo, so tokens printed at one start keep working at the next. */
export const demoUsers = {
  clinicAdmin: {
    id: "00000000-0000-4000-8000-0000000000a1",
    email: "clara.admin@demo.clinic.test",
    name: "Clara Admin",
  },
  staff: { id: "00000000-0000-4000-8000-0000000000a2", email: "sam.staff@demo.clinic.test", name: "Sam Staff" },
  agent: { id: "00000000-0000-4000-8000-0000000000a3", email: "booking.agent@demo.clinic.test", name: "Booking Agent" },
  anna: { id: "00000000-0000-4000-8000-0000000000b1", email: "anna.berg@demo.clinic.test", name: "Anna Berg" },
  ben: { id: "00000000-0000-4000-8000-0000000000b2", email: "ben.koch@demo.clinic.test", name: "Ben Koch" },
  carla: { id: "00000000-0000-4000-8000-0000000000b3", email: "carla.diaz@demo.clinic.test", name: "Carla Diaz" },
  david: { id: "00000000-0000-4000-8000-0000000000b4", email: "david.wolf@demo.clinic.test", name: "David Wolf" },
  /** Not a member: a patient who books online. */
  patient: { id: "00000000-0000-4000-8000-0000000000c1", email: "paula.patient@example.test", name: "Paula Patient" },
} as const;

export interface DemoInfo {
  clinicId: string;
  timezone: string;
  created: boolean;
}

/** True when the database has no clinic yet (the embedded database of a first start). */
export async function isEmpty(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(clinics);
  return (row?.n ?? 0) === 0;
}

/**
 * Creates the demo clinic through the same procedures the API serves (so every rule applies):
 * a Berlin clinic with split-shift hours, providers in each state (approved, pending, suspended),
 * assigned and unassigned services named "<service> - <provider>", a provider closure and a few
 * appointments. Idempotent: a second call finds the clinic and returns it.
 */
export async function seedDemo(db: Db, now: Date = new Date(), name = "Praxis Mitte (demo)"): Promise<DemoInfo> {
  const timezone = "Europe/Berlin";
  const existing = await db
    .select({ id: clinics.id })
    .from(clinics)
    .where(sql`${clinics.name} = ${name}`)
    .limit(1);
  if (existing[0]) return { clinicId: existing[0].id, timezone, created: false };

  const admin: AuthUser = {
    id: "00000000-0000-4000-8000-000000000001",
    email: "admin@clinic.test",
    phoneE164: null,
    isAdmin: true,
  };
  await db.insert(users).values({ id: admin.id, email: admin.email }).onConflictDoNothing();
  const api = createCallerFactory(appRouter)(createContextInner({ db, user: admin, now: () => now }));
  // The booking page is open: Paula (not a member) books for herself.
  const clinic = await api.clinics.create({ name, timezone, online_booking: true });
  const clinicId = clinic.id;
  const member = (who: (typeof demoUsers)[keyof typeof demoUsers], options: { role?: string; provider?: boolean }) =>
    api.members.add({
      clinic_id: clinicId,
      user_id: who.id,
      email: who.email,
      full_name: who.name,
      clinic_role: options.role ?? "STAFF",
      is_provider: options.provider ?? false,
    });

  await member(demoUsers.clinicAdmin, { role: "CLINIC_ADMIN" });
  await member(demoUsers.staff, {});
  await member(demoUsers.agent, { role: "BOOKING_AGENT" });
  for (const provider of [demoUsers.anna, demoUsers.ben, demoUsers.carla, demoUsers.david])
    await member(provider, { provider: true });
  await api.providers.approve({ clinic_id: clinicId, user_id: demoUsers.anna.id });
  await api.providers.approve({ clinic_id: clinicId, user_id: demoUsers.ben.id });
  await api.providers.approve({ clinic_id: clinicId, user_id: demoUsers.david.id });
  await api.providers.suspend({ clinic_id: clinicId, user_id: demoUsers.david.id });
  // Carla stays pending: she appears in the providers list but not in booking.

  for (const weekday of [1, 2, 3, 4, 5]) {
    await api.workHours.createClinic({ clinic_id: clinicId, weekday, opens_at: "08:00", closes_at: "12:30" });
    await api.workHours.createClinic({ clinic_id: clinicId, weekday, opens_at: "13:00", closes_at: "19:00" });
    await api.workHours.createProvider({
      clinic_id: clinicId,
      provider_id: demoUsers.anna.id,
      weekday,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    await api.workHours.createProvider({
      clinic_id: clinicId,
      provider_id: demoUsers.anna.id,
      weekday,
      opens_at: "13:00",
      closes_at: "17:00",
    });
  }
  await api.workHours.createClinic({ clinic_id: clinicId, weekday: 6, opens_at: "09:00", closes_at: "13:00" });
  for (const weekday of [1, 2, 3, 4, 6]) {
    await api.workHours.createProvider({
      clinic_id: clinicId,
      provider_id: demoUsers.ben.id,
      weekday,
      opens_at: weekday === 6 ? "09:00" : "10:00",
      closes_at: weekday === 6 ? "13:00" : "18:00",
    });
  }
  await api.workHours.createProvider({
    clinic_id: clinicId,
    provider_id: demoUsers.carla.id,
    weekday: 5,
    opens_at: "09:00",
    closes_at: "15:00",
  });

  const massageAnna = await api.services.create({
    clinic_id: clinicId,
    name: "Deep Tissue Massage - Anna Berg",
    duration_min: 60,
    price: "89.00",
    provider_id: demoUsers.anna.id,
  });
  await api.services.create({
    clinic_id: clinicId,
    name: "Deep Tissue Massage - Ben Koch",
    duration_min: 60,
    price: "85.00",
    provider_id: demoUsers.ben.id,
  });
  await api.services.create({
    clinic_id: clinicId,
    name: "Sports Massage - Ben Koch",
    duration_min: 30,
    price: 49.9,
    provider_id: demoUsers.ben.id,
  });
  const assessment = await api.services.create({
    clinic_id: clinicId,
    name: "Physiotherapy Assessment",
    duration_min: 45,
    price: "65.00",
    provider_id: null,
  });

  // Ben is away for a day next week: his slots vanish for it and return after.
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timezone).toPlainDate();
  const startOf = (date: Temporal.PlainDate) =>
    new Date(date.toZonedDateTime({ timeZone: timezone }).epochMilliseconds);
  let wednesday = today.add({ days: 7 });
  while (wednesday.dayOfWeek !== 3) wednesday = wednesday.add({ days: 1 });
  await api.closures.createProvider({
    clinic_id: clinicId,
    provider_id: demoUsers.ben.id,
    starts_at: startOf(wednesday),
    ends_at: startOf(wednesday.add({ days: 1 })),
    reason: "Training course",
  });

  // A few appointments on the next working days, booked through the real booking path.
  const booked: Date[] = [];
  for (let offset = 1; booked.length < 3 && offset < 14; offset++) {
    const day = today.add({ days: offset });
    if (day.dayOfWeek > 5) continue;
    const date = day.toString();
    for (const serviceId of booked.length % 2 === 0 ? [massageAnna.id] : [assessment.id]) {
      const slots = await api.availability.get({ clinic_id: clinicId, service_id: serviceId, from: date, to: date });
      const slot = slots.slots[1] ?? slots.slots[0];
      if (!slot) continue;
      await api.appointments.book({
        clinic_id: clinicId,
        service_id: serviceId,
        start: slot.start,
        patient: {
          name: `Demo Patient ${String(booked.length + 1)}`,
          email: `patient${String(booked.length + 1)}@example.test`,
        },
      });
      booked.push(slot.start);
    }
  }
  return { clinicId, timezone, created: true };
}

/** Tokens for the demo's admin, staff member and booking agent. */
export async function demoTokens(
  secret: string,
  options: { issuer?: string | undefined; audience?: string | undefined } = {},
) {
  const mint = (who: { id: string; email: string }) =>
    mintToken(secret, { sub: who.id, email: who.email }, { expiresIn: "30d", ...options });
  return {
    clinicAdmin: await mint(demoUsers.clinicAdmin),
    staff: await mint(demoUsers.staff),
    agent: await mint(demoUsers.agent),
    patient: await mint(demoUsers.patient),
  };
}

/**
 * The demo clinic of this database, when it has one (found by its CLINIC_ADMIN's membership): a
 * start that does not create it still prints its pages and its people's tokens.
 */
export async function findDemo(db: Db): Promise<DemoInfo | undefined> {
  const [row] = await db
    .select({ id: clinics.id, timezone: clinics.timezone })
    .from(clinicMembers)
    .innerJoin(clinics, eq(clinics.id, clinicMembers.clinicId))
    .where(eq(clinicMembers.userId, demoUsers.clinicAdmin.id))
    .orderBy(asc(clinicMembers.createdAt))
    .limit(1);
  return row ? { clinicId: row.id, timezone: row.timezone, created: false } : undefined;
}

/** The demo clinic's id, when this database has one. */
export async function findDemoClinic(db: Db): Promise<string | undefined> {
  return (await findDemo(db))?.clinicId;
}

/** Who the development sign-in page offers (docs/web.md): the demo's people, and a global ADMIN. */
export function devUsers(clinicId: string | undefined): DevUser[] {
  const desk = clinicId ? `/desk/${clinicId}` : "/";
  const book = clinicId ? `/book/${clinicId}` : "/";
  return [
    {
      label: `Paula Patient (a patient, not a member): booking page`,
      sub: demoUsers.patient.id,
      email: demoUsers.patient.email,
      next: book,
    },
    { label: `Sam Staff (STAFF): front desk`, sub: demoUsers.staff.id, email: demoUsers.staff.email, next: desk },
    {
      label: `Clara Admin (CLINIC_ADMIN): front desk`,
      sub: demoUsers.clinicAdmin.id,
      email: demoUsers.clinicAdmin.email,
      next: desk,
    },
    {
      label: `Global ADMIN: API reference`,
      sub: "00000000-0000-4000-8000-000000000001",
      email: "admin@clinic.test",
      roles: ["ADMIN"],
      next: "/docs",
    },
  ];
}
