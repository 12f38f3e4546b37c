// Building the slot engine's query from what the one read (clinic_schedule_context) answers.
import type { Interval } from "../../domain/intervals.ts";
import {
  type Booking,
  type DateOverride,
  type ProviderSchedule,
  type ResourceSchedule,
  type SlotQuery,
  type WeeklyPeriod,
} from "../../domain/slots.ts";
import { type Candidate, type ServiceInfo, rulesOf } from "./service.ts";

/** Where and when: the clinic, its zone and the local dates to read schedules for. */
export interface ScheduleScope {
  clinicId: string;
  timeZone: string;
  fromDate: string;
  toDate: string;
}

/** A closure as the engine sees it, with what an explanation says about it. */
export interface ClosureInterval extends Interval {
  reason: string | null;
}

/** Everything the slot engine needs for the scope, but the clock. */
export type LoadedSchedule = Omit<SlotQuery, "nowMs"> & { clinicClosures: ClosureInterval[] };

/** The rows a schedule is built from, as the one read (clinic_schedule_context) answers them. */
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
  /** Busy time from the providers' own calendars (§18); a stale calendar's row spans all time. */
  external?: readonly { providerId: string; startsAt: Date; endsAt: Date; stale: boolean }[];
  /** The clinic's active resources of the kinds the service needs, with the times they are taken. */
  resources?: readonly ResourceSchedule[];
}

/** The engine's query for the scope from its rows, with the service's rules. */
export function buildSchedule(
  scope: ScheduleScope,
  service: ServiceInfo,
  candidates: readonly Pick<Candidate, "userId" | "status" | "maxDailyAppointments">[],
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
  // Time taken elsewhere: in another clinic (§14) or in the provider's own calendar (§18), as an
  // occupied range without buffers of its own.
  const elsewhere: { providerId: string; startsAt: Date; endsAt: Date; external?: Booking["external"] }[] = [
    ...(rows.elsewhere ?? []),
    ...(rows.external ?? []).map((e) => ({ ...e, external: e.stale ? ("stale" as const) : ("busy" as const) })),
  ];
  for (const e of elsewhere) {
    bookings.get(e.providerId)?.push({
      id: "",
      start: e.startsAt.getTime(),
      end: e.endsAt.getTime(),
      bufferBeforeMin: 0,
      bufferAfterMin: 0,
      elsewhere: true,
      ...(e.external ? { external: e.external } : {}),
    });
  }
  return {
    ...rulesOf(service),
    requiredKinds: service.requiredResourceKinds,
    resources: rows.resources ?? [],
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
      maxDailyAppointments: c.maxDailyAppointments ?? null,
    })),
  };
}
