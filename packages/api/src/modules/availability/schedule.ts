// Reading what the slot engine needs (hours, overrides, closures, bookings) and computing slots from it.
import { type SQL, and, between, eq, gt, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import {
  appointments,
  closures,
  type Db,
  dateOverridePeriods,
  dateOverrides,
  providerBusy,
  workHours,
} from "@clinic/db";
import type { Interval } from "../../domain/intervals.ts";
import {
  type Booking,
  type DateOverride,
  type ProviderSchedule,
  type SlotQuery,
  type WeeklyPeriod,
} from "../../domain/slots.ts";
import { addDays, wallClockToInstant } from "../../domain/timezone.ts";
import { type Candidate, type ServiceInfo, rulesOf } from "./service.ts";

/**
 * Appointments that occupy their time at `now` (every status but canceled, a hold until it ends:
 * the database's `clinic_occupies`, drizzle/0009_front_desk.sql).
 */
export const occupyingAt = (now: Date): SQL =>
  sql`clinic_occupies(${appointments.status}, ${appointments.heldUntil}, ${now.toISOString()}::timestamptz)`;

/** "Appointments of these providers of the clinic that occupy their time at `now`". */
export function bookedAppointmentsOf(clinicId: string, providerIds: string[], now: Date): SQL | undefined {
  return and(eq(appointments.clinicId, clinicId), occupyingAt(now), inArray(appointments.providerId, providerIds));
}

/** Where and when: the clinic, its zone and the local dates to read schedules for. */
export interface ScheduleScope {
  clinicId: string;
  timeZone: string;
  fromDate: string;
  toDate: string;
  /** An appointment to leave out, as if it did not exist (a reschedule's own). */
  excludeAppointmentId?: string | undefined;
}

/** A closure as the engine sees it, with what an explanation says about it. */
export interface ClosureInterval extends Interval {
  reason: string | null;
}

/** Everything the slot engine needs for the scope, but the clock. */
export type LoadedSchedule = Omit<SlotQuery, "nowMs"> & { clinicClosures: ClosureInterval[] };

const HOUR = 3_600_000;

/**
 * Reads the clinic's and the candidates' hours, date overrides, closures and booked appointments
 * for the scope, and builds the engine's query with the service's rules. Providers carry whether
 * they are approved (only approved ones offer slots; explanations name the others).
 */
export async function loadSchedule(
  db: Db,
  scope: ScheduleScope,
  service: ServiceInfo,
  candidates: readonly Pick<Candidate, "userId" | "status">[],
  /** What occupies time is judged at this instant (holds end). */
  now: Date,
): Promise<LoadedSchedule> {
  const { clinicId } = scope;
  const providerIds = candidates.map((c) => c.userId);
  // Instants that surely cover every local date of the range in any time zone (UTC−12 … +14),
  // widened by the longest buffers (4 h each side) for the bookings.
  const rangeStart = new Date(wallClockToInstant(scope.fromDate, 0, "UTC") - 44 * HOUR);
  const rangeEnd = new Date(wallClockToInstant(addDays(scope.toDate, 1), 0, "UTC") + 44 * HOUR);
  const hasProviders = providerIds.length > 0;
  const ownedByScope = (
    providerColumn: typeof workHours.providerId | typeof closures.providerId | typeof dateOverrides.providerId,
  ) => (hasProviders ? or(isNull(providerColumn), inArray(providerColumn, providerIds)) : isNull(providerColumn));
  const [hours, overrideRows, closureRows, booked, elsewhere] = await Promise.all([
    db
      .select({
        providerId: workHours.providerId,
        weekday: workHours.weekday,
        opensMin: workHours.opensMin,
        closesMin: workHours.closesMin,
      })
      .from(workHours)
      .where(and(eq(workHours.clinicId, clinicId), ownedByScope(workHours.providerId))),
    db
      .select({
        providerId: dateOverrides.providerId,
        date: dateOverrides.date,
        opensMin: dateOverridePeriods.opensMin,
        closesMin: dateOverridePeriods.closesMin,
      })
      .from(dateOverrides)
      .leftJoin(
        dateOverridePeriods,
        and(
          eq(dateOverridePeriods.clinicId, dateOverrides.clinicId),
          eq(dateOverridePeriods.overrideId, dateOverrides.id),
        ),
      )
      .where(
        and(
          eq(dateOverrides.clinicId, clinicId),
          between(dateOverrides.date, scope.fromDate, scope.toDate),
          ownedByScope(dateOverrides.providerId),
        ),
      ),
    db
      .select({
        providerId: closures.providerId,
        startsAt: closures.startsAt,
        endsAt: closures.endsAt,
        reason: closures.reason,
      })
      .from(closures)
      .where(
        and(
          eq(closures.clinicId, clinicId),
          lt(closures.startsAt, rangeEnd),
          gt(closures.endsAt, rangeStart),
          ownedByScope(closures.providerId),
        ),
      ),
    hasProviders
      ? db
          .select({
            id: appointments.id,
            providerId: appointments.providerId,
            startsAt: appointments.startsAt,
            endsAt: appointments.endsAt,
            bufferBeforeMin: appointments.bufferBeforeMin,
            bufferAfterMin: appointments.bufferAfterMin,
            serviceId: appointments.serviceId,
          })
          .from(appointments)
          .where(
            and(
              bookedAppointmentsOf(clinicId, providerIds, now),
              lt(appointments.occupiedStart, rangeEnd),
              gt(appointments.occupiedEnd, rangeStart),
              // The same bounds on the start, for the (clinic, provider, start) index: a booking
              // lasts at most a day and its buffers at most 4 h each side.
              gt(appointments.startsAt, new Date(rangeStart.getTime() - 28 * HOUR)),
              lt(appointments.startsAt, new Date(rangeEnd.getTime() + 4 * HOUR)),
              scope.excludeAppointmentId ? ne(appointments.id, scope.excludeAppointmentId) : undefined,
            ),
          )
      : Promise.resolve([]),
    // A shared provider's time in their other clinics (docs/shared-providers.md).
    hasProviders
      ? db
          .select({
            providerId: providerBusy.userId,
            startsAt: providerBusy.occupiedStart,
            endsAt: providerBusy.occupiedEnd,
          })
          .from(providerBusy)
          .where(
            and(
              inArray(providerBusy.userId, providerIds),
              ne(providerBusy.clinicId, clinicId),
              lt(providerBusy.occupiedStart, rangeEnd),
              gt(providerBusy.occupiedEnd, rangeStart),
              or(isNull(providerBusy.heldUntil), gt(providerBusy.heldUntil, now)),
            ),
          )
      : Promise.resolve([]),
  ]);

  return buildSchedule(scope, service, candidates, {
    hours,
    overrides: overrideRows,
    closures: closureRows,
    bookings: booked,
    elsewhere,
  });
}

/** The rows a schedule is built from, as read for one scope (by loadSchedule, or by the booking read). */
export interface ScheduleRows {
  hours: readonly { providerId: string | null; weekday: number; opensMin: number; closesMin: number }[];
  /** One row per period of an override; a row without a period is a closed day. */
  overrides: readonly { providerId: string | null; date: string; opensMin: number | null; closesMin: number | null }[];
  closures: readonly { providerId: string | null; startsAt: Date; endsAt: Date; reason: string | null }[];
  bookings: readonly {
    id: string;
    providerId: string;
    startsAt: Date;
    endsAt: Date;
    bufferBeforeMin: number;
    bufferAfterMin: number;
    serviceId: string;
  }[];
  /** A shared provider's time taken in their other clinics (occupied ranges). */
  elsewhere?: readonly { providerId: string; startsAt: Date; endsAt: Date }[];
}

/** The engine's query for the scope from its rows, with the service's rules. */
export function buildSchedule(
  scope: ScheduleScope,
  service: ServiceInfo,
  candidates: readonly Pick<Candidate, "userId" | "status">[],
  rows: ScheduleRows,
): LoadedSchedule {
  const providerIds = candidates.map((c) => c.userId);
  const byProvider = <T>() => new Map<string, T[]>(providerIds.map((id) => [id, []]));
  const clinicHours: WeeklyPeriod[] = [];
  const providerHours = byProvider<WeeklyPeriod>();
  for (const h of rows.hours) {
    const period = { weekday: h.weekday, opensMin: h.opensMin, closesMin: h.closesMin };
    if (h.providerId === null) clinicHours.push(period);
    else providerHours.get(h.providerId)?.push(period);
  }
  // One override per owner and date; a left-joined row without a period is a closed day.
  const overrides = new Map<string, DateOverride>();
  for (const o of rows.overrides) {
    const key = `${o.providerId ?? ""}|${o.date}`;
    let override = overrides.get(key);
    if (!override) {
      override = { date: o.date, periods: [] };
      overrides.set(key, override);
    }
    if (o.opensMin !== null && o.closesMin !== null)
      (override.periods as { opensMin: number; closesMin: number }[]).push({
        opensMin: o.opensMin,
        closesMin: o.closesMin,
      });
  }
  const overridesOf = (providerId: string | null) =>
    [...overrides.entries()].filter(([key]) => key.startsWith(`${providerId ?? ""}|`)).map(([, o]) => o);
  const clinicClosures: ClosureInterval[] = [];
  const providerClosures = byProvider<ClosureInterval>();
  for (const c of rows.closures) {
    const interval = { start: c.startsAt.getTime(), end: c.endsAt.getTime(), reason: c.reason };
    if (c.providerId === null) clinicClosures.push(interval);
    else providerClosures.get(c.providerId)?.push(interval);
  }
  const bookings = byProvider<Booking>();
  for (const a of rows.bookings) {
    bookings.get(a.providerId)?.push({
      id: a.id,
      start: a.startsAt.getTime(),
      end: a.endsAt.getTime(),
      bufferBeforeMin: a.bufferBeforeMin,
      bufferAfterMin: a.bufferAfterMin,
      serviceId: a.serviceId,
    });
  }
  for (const e of rows.elsewhere ?? []) {
    bookings.get(e.providerId)?.push({
      id: "",
      start: e.startsAt.getTime(),
      end: e.endsAt.getTime(),
      bufferBeforeMin: 0,
      bufferAfterMin: 0,
      elsewhere: true,
    });
  }
  return {
    ...rulesOf(service),
    timeZone: scope.timeZone,
    fromDate: scope.fromDate,
    toDate: scope.toDate,
    clinicHours,
    clinicOverrides: overridesOf(null),
    clinicClosures,
    providers: candidates.map((c): ProviderSchedule => ({
      providerId: c.userId,
      approved: c.status === "approved",
      hours: providerHours.get(c.userId) ?? [],
      overrides: overridesOf(c.userId),
      closures: providerClosures.get(c.userId) ?? [],
      bookings: bookings.get(c.userId) ?? [],
    })),
  };
}
