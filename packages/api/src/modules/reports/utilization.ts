// RP1, utilization (CONTRACT §20, docs/reports.md): the appointments' figures aggregated in one SQL
// statement grouped by the row's key, and the available minutes of the engine's open time
// (schedule.ts). Two round trips, whatever the number of appointments.
import { type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "@clinic/db";
import { notFound } from "../../errors.ts";
import { type ReportRange, timeKeyOf, timeKeysOf, timeLabelOf } from "./range.ts";
import { type ReportSchedule, readReportSchedule } from "./schedule.ts";
import type { ReportGrouping, UtilizationRow } from "./view.ts";

export interface UtilizationQuery {
  clinicId: string;
  timeZone: string;
  range: ReportRange;
  groupBy: ReportGrouping;
  providerId?: string | undefined;
  serviceId?: string | undefined;
}

interface Aggregate {
  key: string;
  label: string | null;
  booked_minutes: number;
  appointments: number;
  completed: number;
  no_show: number;
  canceled: number;
  canceled_late: number;
  median_lead_time_hours: number | null;
}

const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};

/** The appointment filter of both reports: the clinic, the range (overlap), the optional provider and service. */
export function appointmentsInRange(
  query: Pick<UtilizationQuery, "clinicId" | "range" | "providerId" | "serviceId">,
): SQL {
  const { clinicId, range } = query;
  return sql.join(
    [
      sql`a.clinic_id = ${clinicId}::uuid`,
      sql`a.starts_at < ${range.to.toISOString()}::timestamptz`,
      sql`a.ends_at > ${range.from.toISOString()}::timestamptz`,
      // The same bound on the start, for the (clinic, start) index: an appointment lasts at most a day.
      sql`a.starts_at > ${range.from.toISOString()}::timestamptz - interval '28 hours'`,
      ...(query.providerId ? [sql`a.provider_id = ${query.providerId}::uuid`] : []),
      ...(query.serviceId ? [sql`a.service_id = ${query.serviceId}::uuid`] : []),
    ],
    sql` and `,
  );
}

/**
 * The SQL key of an appointment's row, grouped in its own type (a uuid or a date sorts faster than
 * its text): its provider, its service, or the local date of its clipped start's day, week
 * (Monday: date_trunc's ISO week) or month, by PostgreSQL's rules of the clinic's zone.
 */
function keySql(query: UtilizationQuery): SQL {
  const local = sql`(greatest(a.starts_at, ${query.range.from.toISOString()}::timestamptz) at time zone ${query.timeZone})`;
  switch (query.groupBy) {
    case "provider":
      return sql`a.provider_id`;
    case "service":
      return sql`a.service_id`;
    case "day":
      return sql`${local}::date`;
    case "week":
      return sql`date_trunc('week', ${local})::date`;
    case "month":
      return sql`date_trunc('month', ${local})::date`;
  }
}

/** The name of a provider or service key, read after grouping (a handful of rows). */
function labelSql(groupBy: ReportGrouping, clinicId: string): SQL {
  if (groupBy === "provider")
    return sql`(select m.full_name from clinic_members m where m.clinic_id = ${clinicId}::uuid and m.user_id = g.k)`;
  if (groupBy === "service")
    return sql`(select s.name from services s where s.clinic_id = ${clinicId}::uuid and s.id = g.k)`;
  return sql`null::text`;
}

/** The key as text: a uuid as such, a date as `YYYY-MM-DD`. */
function keyTextSql(groupBy: ReportGrouping): SQL {
  return groupBy === "provider" || groupBy === "service" ? sql`g.k::text` : sql`to_char(g.k, 'YYYY-MM-DD')`;
}

/**
 * The figures of the appointments per key, in one statement: every appointment that overlaps the
 * range and is not `held`; booked minutes of those that occupy time (§13), clipped to the range;
 * canceled late when canceled within the clinic's patient cancel cutoff before the start (§9).
 */
async function aggregate(db: Db, query: UtilizationQuery): Promise<Aggregate[]> {
  const from = query.range.from.toISOString();
  const to = query.range.to.toISOString();
  const result = await db.execute(sql`
    select ${keyTextSql(query.groupBy)} as key, ${labelSql(query.groupBy, query.clinicId)} as label, g.booked_minutes,
      g.appointments, g.completed, g.no_show, g.canceled, g.canceled_late, g.median_lead_time_hours
    from (
      select ${keySql(query)} as k,
        coalesce(sum(extract(epoch from least(a.ends_at, ${to}::timestamptz) - greatest(a.starts_at, ${from}::timestamptz)))
          filter (where a.status <> 'canceled'), 0)::float8 / 60 as booked_minutes,
        count(*)::int as appointments,
        (count(*) filter (where a.status = 'completed'))::int as completed,
        (count(*) filter (where a.status = 'no_show'))::int as no_show,
        (count(*) filter (where a.status = 'canceled'))::int as canceled,
        (count(*) filter (where a.status = 'canceled'
          and a.canceled_at > a.starts_at - make_interval(mins => c.patient_cancel_cutoff_min)))::int as canceled_late,
        (percentile_cont(0.5) within group (order by extract(epoch from a.starts_at - a.created_at)))::float8 / 3600
          as median_lead_time_hours
      from appointments a
      join clinics c on c.id = a.clinic_id and c.id = ${query.clinicId}::uuid
      where ${appointmentsInRange(query)} and a.status <> 'held'
      group by 1
    ) g`);
  return rowsOf<Aggregate>(result);
}

/** Which providers' open time counts: approved providers, narrowed by the filters (a service: its candidates, §6 rule 1). */
function countedProviders(schedule: ReportSchedule, query: UtilizationQuery): Set<string> {
  const service = query.serviceId ? schedule.services.find((s) => s.id === query.serviceId) : undefined;
  return new Set(
    schedule.providers
      .filter(
        (p) =>
          p.available &&
          (query.providerId === undefined || p.id === query.providerId) &&
          (service?.providerId == null || p.id === service.providerId),
      )
      .map((p) => p.id),
  );
}

function sumOf(byDate: ReadonlyMap<string, number> | undefined, keep?: (date: string) => boolean): number {
  let total = 0;
  for (const [date, minutes] of byDate ?? []) if (!keep || keep(date)) total += minutes;
  return total;
}

/** RP1: a row per provider, service, day, week or month of the range (docs/reports.md#utilization). */
export async function utilizationReport(db: Db, query: UtilizationQuery): Promise<UtilizationRow[]> {
  const { range, groupBy } = query;
  const [schedule, aggregates] = await Promise.all([
    readReportSchedule(db, {
      clinicId: query.clinicId,
      timeZone: query.timeZone,
      fromDate: range.fromDate,
      toDate: range.toDate,
      from: range.from,
      to: range.to,
      providerId: query.providerId,
    }),
    aggregate(db, query),
  ]);
  if (query.providerId && !schedule.providers.some((p) => p.id === query.providerId)) throw notFound("provider");
  if (query.serviceId && !schedule.services.some((s) => s.id === query.serviceId)) throw notFound("service");
  const counted = countedProviders(schedule, query);
  const byKey = new Map(aggregates.map((a) => [a.key, a]));

  let keys: { key: string; label: string; available: number }[];
  if (groupBy === "provider") {
    const names = new Map(schedule.providers.map((p) => [p.id, p.name]));
    const ids = new Set([...counted, ...byKey.keys()]);
    keys = [...ids].map((id) => ({
      key: id,
      label: names.get(id) ?? byKey.get(id)?.label ?? id,
      available: counted.has(id) ? sumOf(schedule.openMinutes.get(id)) : 0,
    }));
  } else if (groupBy === "service") {
    const services = schedule.services.filter(
      (s) =>
        byKey.has(s.id) ||
        (!s.deleted &&
          (query.serviceId === undefined || s.id === query.serviceId) &&
          (query.providerId === undefined || s.providerId === null || s.providerId === query.providerId)),
    );
    keys = services.map((s) => ({
      key: s.id,
      label: s.name,
      // The time of the providers who may deliver it: its assigned provider, or every provider.
      available: [...counted]
        .filter((p) => s.providerId === null || s.providerId === p)
        .reduce((total, p) => total + sumOf(schedule.openMinutes.get(p)), 0),
    }));
  } else {
    const available = new Map<string, number>();
    for (const p of counted) {
      for (const [date, minutes] of schedule.openMinutes.get(p) ?? []) {
        const key = timeKeyOf(date, groupBy);
        available.set(key, (available.get(key) ?? 0) + minutes);
      }
    }
    keys = timeKeysOf(range, groupBy).map((key) => ({
      key,
      label: timeLabelOf(key, groupBy),
      available: available.get(key) ?? 0,
    }));
  }
  const rows = keys.map(({ key, label, available }): UtilizationRow => {
    const a = byKey.get(key);
    const booked = a?.booked_minutes ?? 0;
    const completed = a?.completed ?? 0;
    const noShow = a?.no_show ?? 0;
    return {
      key,
      label,
      available_minutes: round(available, 2),
      booked_minutes: round(booked, 2),
      utilization: available > 0 ? round(booked / available, 4) : null,
      appointments: a?.appointments ?? 0,
      completed,
      no_show: noShow,
      canceled: a?.canceled ?? 0,
      canceled_late: a?.canceled_late ?? 0,
      no_show_rate: completed + noShow > 0 ? round(noShow / (completed + noShow), 4) : null,
      median_lead_time_hours: a?.median_lead_time_hours == null ? null : round(a.median_lead_time_hours, 2),
    };
  });
  if (groupBy === "provider" || groupBy === "service")
    rows.sort((x, y) => (x.label < y.label ? -1 : x.label > y.label ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return rows;
}
