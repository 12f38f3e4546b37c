// RP2, the appointment list (CONTRACT §20, docs/reports.md#appointment-list): one row per appointment
// of the range, in one statement, without notes and answers (they are never selected).
import { type SQL, sql } from "drizzle-orm";
import { type AppointmentStatus, type Db, appointmentStatuses, rowBatches, rowsOf } from "@clinic/db";
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

/** The statuses RP2 lists: those asked, else every status but `held` (as B2). */
const statusesOf = (query: AppointmentsReportQuery) =>
  query.statuses ?? appointmentStatuses.filter((s) => s !== "held");

/**
 * RP2's statement with the given select list: the appointments that overlap the range, by start
 * (then id), with the clinic, the service and the provider's membership joined (aliases c, s, m).
 */
function appointmentsStatement(query: AppointmentsReportQuery, statuses: readonly AppointmentStatus[], columns: SQL) {
  return sql`
    select ${columns}
    from appointments a
    join clinics c on c.id = a.clinic_id and c.id = ${query.clinicId}::uuid
    left join services s on s.clinic_id = a.clinic_id and s.id = a.service_id and s.clinic_id = ${query.clinicId}::uuid
    left join clinic_members m on m.clinic_id = a.clinic_id and m.user_id = a.provider_id and m.clinic_id = ${query.clinicId}::uuid
    where ${appointmentsInRange(query)}
      and a.status in (${sql.join(
        statuses.map((s) => sql`${s}`),
        sql`, `,
      )})
    order by a.starts_at, a.id`;
}

/** Canceled inside the clinic's patient cancel cutoff before the start (§9). */
const canceledLateOf = (cutoffMin: SQL) => sql`coalesce(a.status = 'canceled'
  and a.canceled_at > a.starts_at - make_interval(mins => ${cutoffMin}), false)`;
const canceledLate = canceledLateOf(sql`c.patient_cancel_cutoff_min`);
const durationMin = sql`round(extract(epoch from a.ends_at - a.starts_at) / 60)::int`;
const leadTimeHours = sql`round((extract(epoch from a.starts_at - a.created_at) / 3600)::numeric, 2)::float8`;
const startLocal = (timeZone: string) => sql`to_char(a.starts_at at time zone ${timeZone}, 'YYYY-MM-DD"T"HH24:MI')`;

/** RP2: the appointments that overlap the range, by start (then id). */
export async function appointmentsReport(db: Db, query: AppointmentsReportQuery): Promise<AppointmentReportRow[]> {
  await assertFilters(db, query);
  const statuses = statusesOf(query);
  if (statuses.length === 0) return [];
  const result = await db.execute(
    appointmentsStatement(
      query,
      statuses,
      sql`a.id, ${epochMs(sql`a.starts_at`)} as start, ${epochMs(sql`a.ends_at`)} as "end",
      ${startLocal(query.timeZone)} as start_local,
      a.status, a.provider_id, m.full_name as provider_name, a.service_id, s.name as service_name,
      ${durationMin} as duration_min,
      a.patient_name, a.patient_email, a.patient_phone_e164, a.patient_user_id, a.booked_by_user_id, a.series_id,
      ${epochMs(sql`a.created_at`)} as created_at,
      ${leadTimeHours} as lead_time_hours,
      ${epochMs(sql`a.canceled_at`)} as canceled_at,
      ${canceledLate} as canceled_late,
      ${epochMs(sql`a.rescheduled_at`)} as rescheduled_at`,
    ),
  );
  return rowsOf<Row>(result).map((r) => ({
    ...r,
    start: new Date(r.start),
    end: new Date(r.end),
    created_at: new Date(r.created_at),
    canceled_at: dateOf(r.canceled_at),
    rescheduled_at: dateOf(r.rescheduled_at),
  }));
}

// RP2 as text, written by PostgreSQL and streamed (docs/reports.md#streaming, docs/performance.md#reports).

/** RP2's answer formats: the JSON document `{"rows":[...]}`, or CSV with a header row. */
export const appointmentsReportFormats = ["json", "csv"] as const;
export type AppointmentsReportFormat = (typeof appointmentsReportFormats)[number];

/** An instant as JSON writes a Date: ISO 8601 in UTC with milliseconds (the columns are timestamptz(3)). */
const isoText = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A text as one CSV field, as toCsv writes it (apps/server/src/csv.ts): null is empty; a text a
 * spreadsheet would run as a formula (=, +, -, @, tab or CR first) gets a leading `'`; a field with
 * a comma, a quote or a line break is quoted, its quotes doubled.
 */
function csvText(value: SQL): SQL {
  const defused = sql`case when left(${value}, 1) in ('=', '+', '-', '@', chr(9), chr(13)) then '''' || ${value} else ${value} end`;
  return sql`case when ${value} is null then ''
    when strpos(${value}, '"') > 0 or strpos(${value}, ',') > 0 or strpos(${value}, chr(10)) > 0 or strpos(${value}, chr(13)) > 0
      then '"' || replace(${defused}, '"', '""') || '"'
    else ${defused} end`;
}

/**
 * A value that can never need quoting or defusing as one CSV field, as toCsv writes it: a number,
 * boolean or instant as JSON writes it, or a text of a known alphabet (a UUID, a status, a local
 * time); null empty.
 */
const csvPlain = (value: SQL) => sql`coalesce((${value})::text, '')`;

/** RP2's columns in the row schema's order (the CSV header and the JSON keys). */
function textColumns(timeZone: string): TextColumn[] {
  const text = (name: string, value: SQL): TextColumn => ({ name, value, kind: "text" });
  const plain = (name: string, value: SQL): TextColumn => ({ name, value, kind: "plain" });
  const literal = (name: string, value: SQL): TextColumn => ({ name, value, kind: "literal" });
  return [
    plain("id", sql`a.id::text`),
    plain("start", isoText(sql`a.starts_at`)),
    plain("end", isoText(sql`a.ends_at`)),
    plain("start_local", startLocal(timeZone)),
    plain("status", sql`a.status::text`),
    plain("provider_id", sql`a.provider_id::text`),
    text("provider_name", sql`a.provider_name`),
    plain("service_id", sql`a.service_id::text`),
    text("service_name", sql`a.service_name`),
    literal("duration_min", durationMin),
    text("patient_name", sql`a.patient_name`),
    text("patient_email", sql`a.patient_email`),
    text("patient_phone_e164", sql`a.patient_phone_e164`),
    plain("patient_user_id", sql`a.patient_user_id::text`),
    plain("booked_by_user_id", sql`a.booked_by_user_id::text`),
    plain("series_id", sql`a.series_id::text`),
    plain("created_at", isoText(sql`a.created_at`)),
    literal("lead_time_hours", leadTimeHours),
    plain("canceled_at", isoText(sql`a.canceled_at`)),
    literal("canceled_late", canceledLateOf(sql`a.patient_cancel_cutoff_min`)),
    plain("rescheduled_at", isoText(sql`a.rescheduled_at`)),
  ];
}

/**
 * A column of RP2's text: its value, computed once per row from the sorted rows (`sorted` below,
 * aliased `a`), and its kind. `text`: free text (names, e-mail, phone), quoted and defused in CSV
 * and escaped in JSON. `plain`: a text of a known alphabet (UUIDs, statuses, local times, instants:
 * none has a comma, quote, backslash, control character or line break, or begins with = + - @ tab
 * or CR), written as it is (a JSON string in quotes). `literal`: a number or boolean, as JSON and
 * CSV write it. Each may be null (empty in CSV, `null` in JSON).
 */
interface TextColumn {
  name: string;
  value: SQL;
  kind: "text" | "plain" | "literal";
}

/**
 * A column as one JSON value, as JSON.stringify writes it: `to_json` escapes free text exactly as
 * JSON.stringify does (quote, backslash, control characters); a value of a known alphabet only
 * needs its quotes; numbers and booleans are their text (float8's shortest form, as JavaScript's).
 */
function jsonValue(column: TextColumn, value: SQL): SQL {
  if (column.kind === "text") return sql`coalesce(to_json(${value})::text, 'null')`;
  if (column.kind === "plain") return sql`coalesce('"' || ${value} || '"', 'null')`;
  return sql`coalesce((${value})::text, 'null')`;
}

/**
 * A row as one JSON object, keys in the row schema's order, by concatenation: row_to_json, which
 * looks up each column's type output and escapes every string, was half of PostgreSQL's time for a
 * year as JSON (docs/performance.md#reports).
 */
function jsonLine(columns: readonly TextColumn[]): SQL {
  return sql.join(
    columns.map((c, i) => {
      const key = sql.raw(`'${i === 0 ? "{" : ","}"${c.name}":'`);
      return sql`${key} || ${jsonValue(c, sql`r.${sql.identifier(c.name)}`)}`;
    }),
    sql` || `,
  );
}

/** Rows per batch of the cursor: ~2,000 × ~400 bytes, under a MiB in memory at a time. */
const textBatchRows = 2000;

/**
 * RP2 written by PostgreSQL as text, in chunks: each row's JSON object (`jsonLine`, keys in the
 * row schema's order) or CSV line is made by the statement, so this process reads one text per
 * row and joins them; the chunks follow a cursor, so the first leaves after the first batch and
 * memory does not grow with the rows. The same rows and values as `appointmentsReport` written by
 * JSON.stringify, and the same bytes as toCsv: test/reportsText.test.ts compares them and checks
 * the JSON with the row schema, rather than zod checking every row here. A provider or service of
 * another clinic throws (404) before the first chunk.
 */
export async function* appointmentsReportText(
  db: Db,
  query: AppointmentsReportQuery,
  format: AppointmentsReportFormat,
): AsyncGenerator<string> {
  await assertFilters(db, query);
  const statuses = statusesOf(query);
  const columns = textColumns(query.timeZone);
  // Three steps, each a subquery that `offset 0` keeps the planner from pulling up: the rows sorted
  // with only the columns they need (a narrow sort: sorting the finished texts spilled 60 MB to disk);
  // each value computed once from them (pulled up, a value would be computed again at each use in
  // the CSV expression); the row's text from those. A plain projection keeps its input's order.
  const sorted = appointmentsStatement(
    query,
    statuses,
    sql`a.id, a.starts_at, a.ends_at, a.status, a.provider_id, a.service_id, a.patient_name, a.patient_email,
      a.patient_phone_e164, a.patient_user_id, a.booked_by_user_id, a.series_id, a.created_at, a.canceled_at,
      a.rescheduled_at, m.full_name as provider_name, s.name as service_name, c.patient_cancel_cutoff_min`,
  );
  const values = sql`select ${sql.join(
    columns.map((c) => sql`${c.value} as ${sql.identifier(c.name)}`),
    sql`, `,
  )} from (${sorted} offset 0) a`;
  const line =
    format === "json"
      ? sql`${jsonLine(columns)} || '}'`
      : sql.join(
          columns.map((c) => {
            const column = sql`r.${sql.identifier(c.name)}`;
            return c.kind === "text" ? csvText(column) : csvPlain(column);
          }),
          sql` || ',' || `,
        );
  yield format === "json" ? '{"rows":[' : `${columns.map((c) => c.name).join(",")}\r\n`;
  let first = true;
  if (statuses.length > 0) {
    const statement = sql`select ${line} as line from (${values} offset 0) r`;
    for await (const batch of rowBatches<{ line: string }>(db, statement, textBatchRows)) {
      let chunk = "";
      for (const row of batch) {
        if (format === "csv") chunk += `${row.line}\r\n`;
        else {
          chunk += first ? row.line : `,${row.line}`;
          first = false;
        }
      }
      yield chunk;
    }
  }
  if (format === "json") yield "]}";
}
