// The world the HTTP benches (`npm run bench`, `npm run bench:soak`) load, written straight to the
// database in batches, and its removal afterwards: clinics in a few time zones, each with its
// providers (approved, Mon–Fri 09:00–17:00 clinic time), services assigned to one provider and
// services any provider gives, booking agents and staff with tokens of their own, and, for some
// clinics, an active webhook to a local sink. Plus one large clinic (50 providers by default), the
// availability miss's.
import { randomBytes, randomUUID } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import { mintToken, refreshSharedProvider } from "@clinic/api";
// Not exported by @clinic/api's index: the members module's own upkeep of shared providers, which a
// world written straight to the database must call as the members API would.
import {
  clinicMembers,
  clinics,
  type DbHandle,
  providerBusy,
  rowsOf,
  services,
  users,
  webhooks,
  workHours,
} from "@clinic/db";
import { benchSecret } from "./server.ts";

export interface BenchClinic {
  id: string;
  name: string;
  timezone: string;
  /** The providers' user ids. */
  providerIds: string[];
  /** One 30-minute service per provider, in the providers' order. */
  assignedServiceIds: string[];
  /** 30-minute services with no assigned provider ("any provider"). */
  anyServiceIds: string[];
  /** Bearer tokens (signed with `benchSecret`) of the clinic's booking agents and staff. */
  tokens: string[];
  /** Whether the clinic has an active webhook (to the sink). */
  webhook: boolean;
}

export interface WorldShape {
  /** Clinics of `providersPerClinic` providers each. */
  clinics: number;
  providersPerClinic: number;
  /** Booking agents and staff, spread evenly over the clinics (the first 20 are members of the large clinic too). */
  users: number;
  /** Any-provider services per clinic. */
  anyServicesPerClinic: number;
  /** The providers of the one large clinic. */
  largeClinicProviders: number;
  /**
   * The providers of the cache rows' clinic (default 20): their keys are its any-provider
   * services over one day, answers of every provider's slots, not tiny ones (issue 37).
   */
  cacheClinicProviders?: number;
  /** Clinics (every clinics/webhookClinics-th, from the first) with an active webhook to `webhookUrl`. */
  webhookClinics: number;
  webhookUrl: string | undefined;
  /**
   * Every provider of clinic c also an approved provider (same hours) of clinic (c + 1) mod
   * clinics, made shared as the members API would (refreshSharedProvider: shared_providers and
   * provider_busy), so that their bookings are written into provider_busy too. Off by default.
   */
  sharedProviders?: boolean;
  /**
   * Days of past appointments (completed, eight a weekday per provider, 09:00–17:00 UTC) written
   * into every clinic before the run, so that the clinics are as full as a clinic in use and the
   * planner's statistics say so (docs/performance.md#benchmark). 0 (the default): none.
   * Not with `sharedProviders` (their bookings also need provider_busy rows).
   */
  historyDays?: number;
  /**
   * Busy time from providers' own calendars (docs/calendars.md) for every provider of the cache
   * clinic and the large clinic (`npm run bench -- --calendars`): one calendar each and, on every
   * weekday from `from` for `days` days, 12:00–13:00 and 15:30–16:00 clinic time. Off by default.
   */
  calendarBusy?: { from: string; days: number };
}

export interface BenchWorld {
  clinics: BenchClinic[];
  large: BenchClinic;
  /** The cache rows' clinic (`cacheClinicProviders` providers). */
  cache: BenchClinic;
  /** Every user the world created (members and providers), for its removal. */
  userIds: string[];
  shape: WorldShape;
}

export const zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"];
const weekdays = [1, 2, 3, 4, 5];
/** 09:00–17:00 clinic time. */
const opensMin = 540;
const closesMin = 1020;

/** Inserts `rows` `size` at a time: one statement per batch, not one per row. */
async function batched<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}

const at = <T>(list: readonly T[], i: number): T => {
  const value = list[i];
  if (value === undefined) throw new Error(`no element ${String(i)} in a list of ${String(list.length)}`);
  return value;
};

/** Seeds the world; `progress` hears about each step. */
export async function seedWorld(
  database: DbHandle,
  shape: WorldShape,
  progress: (line: string) => void = () => undefined,
): Promise<BenchWorld> {
  const started = Date.now();
  const tag = randomBytes(4).toString("hex");
  const { db } = database;
  const clinicRows: (typeof clinics.$inferInsert)[] = [];
  const userRows: (typeof users.$inferInsert)[] = [];
  const memberRows: (typeof clinicMembers.$inferInsert)[] = [];
  const hourRows: (typeof workHours.$inferInsert)[] = [];
  const serviceRows: (typeof services.$inferInsert)[] = [];
  const webhookRows: (typeof webhooks.$inferInsert)[] = [];
  const world: BenchClinic[] = [];
  const webhookEvery = shape.webhookClinics > 0 ? Math.max(1, Math.floor(shape.clinics / shape.webhookClinics)) : 0;

  const addClinic = (name: string, timezone: string, providers: number, webhook: boolean): BenchClinic => {
    const id = randomUUID();
    clinicRows.push({ id, name, timezone });
    hourRows.push(
      ...weekdays.map((weekday) => ({ clinicId: id, scope: "clinic" as const, weekday, opensMin, closesMin })),
    );
    const clinic: BenchClinic = {
      id,
      name,
      timezone,
      providerIds: [],
      assignedServiceIds: [],
      anyServiceIds: [],
      tokens: [],
      webhook,
    };
    for (let p = 0; p < providers; p++) {
      const providerId = randomUUID();
      const email = `p${String(p)}-${id}@bench.test`;
      userRows.push({ id: providerId, email });
      memberRows.push({
        clinicId: id,
        userId: providerId,
        fullName: `Provider ${String(p).padStart(2, "0")}`,
        email,
        isProvider: true,
        status: "approved",
        clinicRole: "STAFF",
      });
      hourRows.push(
        ...weekdays.map((weekday) => ({
          clinicId: id,
          scope: "provider" as const,
          providerId,
          weekday,
          opensMin,
          closesMin,
        })),
      );
      const serviceId = randomUUID();
      serviceRows.push({
        id: serviceId,
        clinicId: id,
        name: `Consultation with provider ${String(p)}`,
        durationMin: 30,
        providerId,
      });
      clinic.providerIds.push(providerId);
      clinic.assignedServiceIds.push(serviceId);
    }
    for (let s = 0; s < shape.anyServicesPerClinic; s++) {
      const serviceId = randomUUID();
      serviceRows.push({
        id: serviceId,
        clinicId: id,
        name: `Check-up ${String(s)} (any provider)`,
        durationMin: 30,
        providerId: null,
      });
      clinic.anyServiceIds.push(serviceId);
    }
    if (webhook && shape.webhookUrl) {
      webhookRows.push({
        clinicId: id,
        url: `${shape.webhookUrl}/${id}`,
        eventTypes: ["*"],
        description: "bench sink",
        active: true,
        secret: `whsec_${randomBytes(24).toString("base64")}`,
        // A new clinic's feed is empty: the webhook follows it from its start.
        feedSeq: 0,
      });
    }
    world.push(clinic);
    return clinic;
  };

  for (let c = 0; c < shape.clinics; c++) {
    addClinic(
      `Bench ${tag} clinic ${String(c).padStart(3, "0")}`,
      at(zones, c % zones.length),
      shape.providersPerClinic,
      webhookEvery > 0 && c % webhookEvery === 0 && c / webhookEvery < shape.webhookClinics,
    );
  }
  const large = addClinic(`Bench ${tag} large clinic`, "Europe/Berlin", shape.largeClinicProviders, false);
  const cache = addClinic(`Bench ${tag} cache clinic`, "Europe/Berlin", shape.cacheClinicProviders ?? 20, false);
  const regular = world.slice(0, shape.clinics);
  // Shared providers: clinic c's providers work in clinic (c + 1) mod clinics too, with the same hours.
  const sharedIds: string[] = [];
  if (shape.sharedProviders && regular.length > 1) {
    regular.forEach((clinic, c) => {
      const next = at(regular, (c + 1) % regular.length);
      clinic.providerIds.forEach((providerId, p) => {
        sharedIds.push(providerId);
        memberRows.push({
          clinicId: next.id,
          userId: providerId,
          fullName: `Provider ${String(p).padStart(2, "0")} of ${clinic.name}`,
          email: `p${String(p)}-${clinic.id}@bench.test`,
          isProvider: true,
          status: "approved",
          clinicRole: "STAFF",
        });
        hourRows.push(
          ...weekdays.map((weekday) => ({
            clinicId: next.id,
            scope: "provider" as const,
            providerId,
            weekday,
            opensMin,
            closesMin,
          })),
        );
      });
    });
  }

  // The booking agents and staff: user u belongs to clinic u mod clinics; the first 20 to the large clinic too.
  const members: { userId: string; email: string; clinics: BenchClinic[] }[] = [];
  for (let u = 0; u < shape.users; u++) {
    const userId = randomUUID();
    const email = `u${String(u)}-${tag}-${userId.slice(0, 8)}@bench.test`;
    userRows.push({ id: userId, email });
    const own = regular.length > 0 ? [at(regular, u % regular.length)] : [];
    // Users 0–19 also belong to the large clinic, 20–39 to the cache clinic.
    const theirs = u < 20 || own.length === 0 ? [...own, large] : u < 40 ? [...own, cache] : own;
    for (const clinic of theirs) {
      memberRows.push({
        clinicId: clinic.id,
        userId,
        fullName: `${u % 3 === 0 ? "Staff" : "Agent"} ${String(u)}`,
        email,
        clinicRole: u % 3 === 0 ? "STAFF" : "BOOKING_AGENT",
      });
    }
    members.push({ userId, email, clinics: theirs });
  }

  progress(
    `seeding ${String(clinicRows.length)} clinics, ${String(userRows.length)} users, ${String(memberRows.length)} memberships, ${String(hourRows.length)} work hours, ${String(serviceRows.length)} services, ${String(webhookRows.length)} webhooks ...`,
  );
  await batched(clinicRows, (rows) => db.insert(clinics).values(rows));
  await batched(userRows, (rows) => db.insert(users).values(rows));
  await batched(memberRows, (rows) => db.insert(clinicMembers).values(rows));
  await batched(hourRows, (rows) => db.insert(workHours).values(rows));
  await batched(serviceRows, (rows) => db.insert(services).values(rows));
  await batched(webhookRows, (rows) => db.insert(webhooks).values(rows));
  const historyDays = shape.sharedProviders ? 0 : (shape.historyDays ?? 0);
  if (historyDays > 0) {
    progress(`  writing ${String(historyDays)} days of past appointments ...`);
    await batched(
      world.map((c) => c.id),
      (ids) =>
        db.execute(sql`
          insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, status, patient_name,
            occupied_start, occupied_end, created_at, updated_at)
          select s.clinic_id, s.id, s.provider_id, t.at, t.at + interval '30 minutes', 'completed', 'Past patient',
            t.at, t.at + interval '30 minutes', t.at - interval '7 days', t.at
          from services s
          cross join generate_series(1, ${historyDays}::int) d
          cross join generate_series(0, 7) k
          cross join lateral (select date_trunc('day', now()) - d * interval '1 day' + interval '9 hours' + k * interval '1 hour' as at) t
          where s.clinic_id in (${sql.join(
            ids.map((id) => sql`${id}::uuid`),
            sql`, `,
          )}) and s.provider_id is not null and extract(isodow from t.at) < 6`),
      10,
    );
  }
  if (shape.calendarBusy) {
    progress(`  writing calendars' busy time of the cache and large clinics' providers ...`);
    for (const clinic of [large, cache]) {
      await db.execute(sql`
        insert into calendars (clinic_id, id, provider_id, kind, shown_url, secret, status, last_synced_at, busy_count)
        select ${clinic.id}::uuid, p, p, 'ics', 'https://calendar.example.org/bench.ics', 'v1.bench.bench.bench', 'ok', now(), 0
        from unnest(${sql.param(clinic.providerIds)}::uuid[]) p`);
      await db.execute(sql`
        insert into calendar_busy (clinic_id, provider_id, calendar_clinic_id, calendar_id, starts_at, ends_at)
        select ${clinic.id}::uuid, p, ${clinic.id}::uuid, p, (d + b.starts) at time zone ${clinic.timezone},
               (d + b.ends) at time zone ${clinic.timezone}
        from unnest(${sql.param(clinic.providerIds)}::uuid[]) p
        cross join generate_series(${shape.calendarBusy.from}::date, ${shape.calendarBusy.from}::date + ${shape.calendarBusy.days}::int - 1, interval '1 day') d
        cross join (values (interval '12 hours', interval '13 hours'), (interval '15 hours 30 minutes', interval '16 hours')) b(starts, ends)
        where extract(isodow from d) < 6`);
    }
  }
  // The availability versions of a network in use: every clinic and provider has one (a
  // booking or a change made it), and they were made in the order those happened, across
  // clinics, so that a clinic's rows lie on as many pages as it has rows. Written clinic by
  // clinic when bookings first made them, and not at all before them, the rows of the cache-hit
  // row's lookups were few and together: its first run measured a state no network stays in
  // (PostgreSQL CPU per hit 0.016 ms before any booking, 0.040 after; docs/performance.md).
  const scopes = world.flatMap((clinic) => [clinic.id, ...clinic.providerIds].map((scope) => [clinic.id, scope]));
  for (let i = scopes.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [scopes[i], scopes[j]] = [at(scopes, j), at(scopes, i)];
  }
  await batched(
    scopes,
    (rows) =>
      db.execute(sql`
        insert into availability_versions (clinic_id, scope_id, version, schedule_version)
        select v.clinic_id, v.scope_id, clinic_version_clock(), clinic_version_clock()
        from unnest(${`{${rows.map((r) => r[0]).join(",")}}`}::uuid[], ${`{${rows.map((r) => r[1]).join(",")}}`}::uuid[])
          as v(clinic_id, scope_id)
        on conflict do nothing`),
    50,
  );
  if (sharedIds.length > 0) {
    progress(`  sharing ${String(sharedIds.length)} providers with a second clinic (refreshSharedProvider) ...`);
    await batched(
      sharedIds,
      (ids) =>
        db.transaction(async (tx) => {
          for (const id of ids) await refreshSharedProvider(tx, id);
        }),
      100,
    );
  }
  progress(`  rows written in ${String(Date.now() - started)} ms; minting ${String(members.length)} tokens ...`);
  for (const member of members) {
    const token = await mintToken(benchSecret, { sub: member.userId, email: member.email }, { expiresIn: "24h" });
    for (const clinic of member.clinics) clinic.tokens.push(token);
  }
  progress(`  seeded in ${String(Date.now() - started)} ms`);
  return { clinics: regular, large, cache, userIds: userRows.flatMap((row) => (row.id ? [row.id] : [])), shape };
}

/**
 * Removes what a bench that was stopped before its end left behind (its clinics are named
 * `Bench <tag> …`, its users' addresses end in `@bench.test`): left there, its 160,000 past
 * appointments and queued jobs would be measured with the next run's own. Answers how many clinics
 * it removed.
 */
export async function removeLeftovers(database: DbHandle): Promise<number> {
  const { db } = database;
  const clinicIds = rowsOf<{ id: string }>(
    await db.execute(sql`select id from clinics where name like 'Bench % clinic%'`),
  ).map((row) => row.id);
  if (clinicIds.length === 0) return 0;
  const userIds = rowsOf<{ id: string }>(
    await db.execute(sql`select id from users where email like '%@bench.test'`),
  ).map((row) => row.id);
  await removeRows(database, clinicIds, userIds, true);
  return clinicIds.length;
}

/**
 * Deletes the world's clinics (members, hours, services, bookings, events, webhooks and their
 * queued jobs go with them) and its users.
 */
export async function removeWorld(database: DbHandle, world: BenchWorld): Promise<void> {
  const clinicIds = [...world.clinics, world.large, world.cache].map((c) => c.id);
  await removeRows(database, clinicIds, world.userIds, world.shape.sharedProviders ?? false);
}

async function removeRows(
  database: DbHandle,
  clinicIds: string[],
  userIds: string[],
  sharedProviders: boolean,
): Promise<void> {
  // provider_busy (shared providers' time) has no foreign key to clinics or users.
  if (sharedProviders)
    await batched(userIds, (ids) => database.db.delete(providerBusy).where(inArray(providerBusy.userId, ids)), 1000);
  await batched(clinicIds, (ids) => database.db.delete(clinics).where(inArray(clinics.id, ids)), 20);
  await batched(userIds, (ids) => database.db.delete(users).where(inArray(users.id, ids)), 1000);
}
