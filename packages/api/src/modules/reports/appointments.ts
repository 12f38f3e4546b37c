// RP2, the appointment list (CONTRACT §20, docs/reports.md#appointment-list): one row per appointment
// of the range, in one statement, without notes and answers (they are never selected).
import { type SQL, sql } from "drizzle-orm";
import { type AppointmentStatus, type Db, appointmentStatuses, rowsOf } from "@clinic/db";
import { notFound } from "../../errors.ts";
import type { ReportRange } from "./range.ts";
import { appointmentsInRange } from "./utilization.ts";
import type { AppointmentReportRow } from "./view.ts";

export interface AppointmentsReportQuery {
  clinicId: string;
  timeZone: string;
  range: ReportRange;
  /** The statuses listed; default every status but `held` (as B2). */
  statuses?: readonly AppointmentStatus[] | undefined;
  providerId?: string | undefined;
  serviceId?: string | undefined;
}

interface Row {
  id: string;
  start: number;
  end: number;
  start_local: string;
  status: AppointmentStatus;
  provider_id: string;
  provider_name: string | null;
  service_id: string;
  service_name: string | null;
  duration_min: number;
  patient_name: string;
  patient_email: string | null;
  patient_phone_e164: string | null;
  patient_user_id: string | null;
  booked_by_user_id: string | null;
  series_id: string | null;
  created_at: number;
  lead_time_hours: number;
  canceled_at: number | null;
  canceled_late: boolean;
  rescheduled_at: number | null;
}

const dateOf = (ms: number | null) => (ms === null ? null : new Date(ms));

/** An instant as epoch milliseconds (a float8: both drivers give a number, cheaper than text to read). */
const epochMs = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;

/**
 * 404 for a provider or service that is not the clinic's (a deleted service's appointments are
 * still listed: its row stays).
 */
async function assertFilters(db: Db, query: AppointmentsReportQuery): Promise<void> {
  if (!query.providerId && !query.serviceId) return;
  const [found] = rowsOf<{ provider: boolean; service: boolean }>(
    await db.execute(sql`select
      exists (select 1 from clinic_members m where m.clinic_id = ${query.clinicId}::uuid
        and m.user_id = ${query.providerId ?? null}::uuid) as provider,
      exists (select 1 from services s where s.clinic_id = ${query.clinicId}::uuid
        and s.id = ${query.serviceId ?? null}::uuid) as service`),
  );
  if (query.providerId && !found?.provider) throw notFound("provider");
  if (query.serviceId && !found?.service) throw notFound("service");
}

/** RP2: the appointments that overlap the range, by start (then id). */
export async function appointmentsReport(db: Db, query: AppointmentsReportQuery): Promise<AppointmentReportRow[]> {
  await assertFilters(db, query);
  const statuses = query.statuses ?? appointmentStatuses.filter((s) => s !== "held");
  if (statuses.length === 0) return [];
  const result = await db.execute(sql`
    select a.id, ${epochMs(sql`a.starts_at`)} as start, ${epochMs(sql`a.ends_at`)} as "end",
      to_char(a.starts_at at time zone ${query.timeZone}, 'YYYY-MM-DD"T"HH24:MI') as start_local,
      a.status, a.provider_id, m.full_name as provider_name, a.service_id, s.name as service_name,
      round(extract(epoch from a.ends_at - a.starts_at) / 60)::int as duration_min,
      a.patient_name, a.patient_email, a.patient_phone_e164, a.patient_user_id, a.booked_by_user_id, a.series_id,
      ${epochMs(sql`a.created_at`)} as created_at,
      round((extract(epoch from a.starts_at - a.created_at) / 3600)::numeric, 2)::float8 as lead_time_hours,
      ${epochMs(sql`a.canceled_at`)} as canceled_at,
      coalesce(a.status = 'canceled' and a.canceled_at > a.starts_at - make_interval(mins => c.patient_cancel_cutoff_min), false)
        as canceled_late,
      ${epochMs(sql`a.rescheduled_at`)} as rescheduled_at
    from appointments a
    join clinics c on c.id = a.clinic_id and c.id = ${query.clinicId}::uuid
    left join services s on s.clinic_id = a.clinic_id and s.id = a.service_id and s.clinic_id = ${query.clinicId}::uuid
    left join clinic_members m on m.clinic_id = a.clinic_id and m.user_id = a.provider_id and m.clinic_id = ${query.clinicId}::uuid
    where ${appointmentsInRange(query)}
      and a.status in (${sql.join(
        statuses.map((s) => sql`${s}`),
        sql`, `,
      )})
    order by a.starts_at, a.id`);
  return rowsOf<Row>(result).map((r) => ({
    ...r,
    start: new Date(r.start),
    end: new Date(r.end),
    created_at: new Date(r.created_at),
    canceled_at: dateOf(r.canceled_at),
    rescheduled_at: dateOf(r.rescheduled_at),
  }));
}
