// X1 and X3: everything a clinic holds about a patient, as one JSON document (§21,
// docs/patient-data.md#export-x1-x3). Who the patient is comes from clinic_match_patient, the one
// definition the erasure (X2) uses too; this file reads the matched rows, in one read-only snapshot
// per clinic, and shows each with its module's own view (appointments as B3, waitlist entries as
// WL2, series as R2 without their occurrences, audit entries as A1).
import { type SQL, and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { z } from "zod";
import {
  type Db,
  appointmentSeries,
  appointments,
  auditLog,
  callClinicJsonFunction,
  clinicMembers,
  clinicPatients,
  clinics,
  messageKinds,
  messageStatuses,
  messages,
  rowsOf,
  waitlistEntries,
} from "@clinic/db";
import { instantOutput } from "../../schemas/wire.ts";
import { auditEntryOutput } from "../audit/index.ts";
import { appointmentOutput, selectAppointments, toAppointment } from "../booking/index.ts";
import { seriesFromJson, seriesOutput } from "../series/index.ts";
import { toWaitlistEntry, waitlistEntryOutput } from "../waitlist/index.ts";
import type { PatientMatch } from "./pseudonym.ts";

/**
 * The most rows one list of an export holds. An export is one document, not a paginated list: a
 * clinic's patient rarely has more than a few hundred rows of any kind; a list cut at this length
 * is named in `truncated` (its oldest rows are kept).
 */
export const exportListCap = 10_000;

const exportLists = [
  "appointments",
  "series",
  "waitlist_entries",
  "messages",
  "manage_link_uses",
  "audit_entries",
] as const;

/** A message sent to the patient or about their rows: recipient, subject, status and times (not its body). */
export const exportedMessageOutput = z.object({
  id: z.string(),
  appointment_id: z.string(),
  kind: z.enum(messageKinds),
  to: z.string(),
  subject: z.string().nullable(),
  status: z.enum(messageStatuses),
  attempts: z.number().int(),
  sent_at: instantOutput.nullable(),
  created_at: instantOutput,
});

/** A series (R2) without its occurrences, which are among the export's appointments. */
export const exportedSeriesOutput = seriesOutput.omit({ occurrences: true }).extend({
  appointment_ids: z.array(z.string()),
});

/** X1: what one clinic holds about one patient. */
export const patientExportOutput = z.object({
  clinic: z.object({ id: z.string(), name: z.string() }),
  exported_at: instantOutput,
  /** Contact data: every account id, name, e-mail address (lower-cased) and phone number held by the rows below (never merely the one asked for). */
  patient: z.object({
    user_ids: z.array(z.string()),
    names: z.array(z.string()),
    emails: z.array(z.string()),
    phones: z.array(z.string()),
  }),
  /** The clinic's record that an account of the patient booked there (first and last time). */
  registrations: z.array(
    z.object({ user_id: z.string(), first_booked_at: instantOutput, last_booked_at: instantOutput }),
  ),
  /** Where the patient is also a member of the clinic (staff, a provider): the membership as the clinic keeps it. */
  memberships: z.array(
    z.object({
      user_id: z.string(),
      full_name: z.string(),
      email: z.string(),
      phone_e164: z.string().nullable(),
      clinic_role: z.string(),
      is_provider: z.boolean(),
      status: z.string(),
      notes: z.string().nullable(),
      created_at: instantOutput,
    }),
  ),
  /** By start: each with its status_history, answers and notes. */
  appointments: z.array(appointmentOutput),
  series: z.array(exportedSeriesOutput),
  waitlist_entries: z.array(waitlistEntryOutput),
  messages: z.array(exportedMessageOutput),
  /**
   * The status changes the patient made themselves (docs/patient-data.md#manage-link-uses): by
   * their appointment's manage link, or, with an account, by their own /v1/me routes.
   */
  manage_link_uses: z.array(
    z.object({
      appointment_id: z.string(),
      status: appointmentOutput.shape.status,
      at: z.string(),
      by_user_id: z.string().nullable(),
    }),
  ),
  audit_entries: z.array(auditEntryOutput),
  /** The lists cut at `exportListCap` rows (normally none). */
  truncated: z.array(z.enum(exportLists)),
});
export type PatientExport = z.infer<typeof patientExportOutput>;

/** X3: the caller's own data, in every clinic where they appear. */
export const myExportOutput = z.object({
  user: z.object({ id: z.string(), email: z.string(), phone_e164: z.string().nullable() }),
  exported_at: instantOutput,
  clinics: z.array(patientExportOutput),
});
export type MyExport = z.infer<typeof myExportOutput>;

/** The identifiers clinic_match_patient takes: any of them (X1 gives one, X3 the account's three). */
interface PatientKeys {
  user_id: string | null;
  email: string | null;
  phone: string | null;
}

const matched = z.object({
  user_ids: z.array(z.string()),
  appointment_ids: z.array(z.string()),
  series_ids: z.array(z.string()),
  waitlist_ids: z.array(z.string()),
  emails: z.array(z.string()),
  phones: z.array(z.string()),
});

const keysOf = (match: PatientMatch): PatientKeys => ({
  user_id: "patient_user_id" in match ? match.patient_user_id : null,
  email: "email" in match ? match.email : null,
  phone: "phone_e164" in match ? match.phone_e164 : null,
});

/** `column IN (values)`, or false for none. */
const among = (column: Parameters<typeof inArray>[0], values: readonly string[]): SQL =>
  values.length === 0 ? sql`false` : inArray(column, [...values]);

/** A LIKE pattern finding `value` inside a JSON document's text (as a JSON string writes it). */
const insideJson = (value: string) =>
  `%${JSON.stringify(value)
    .slice(1, -1)
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const distinct = (values: readonly (string | null)[]) =>
  [...new Set(values.filter((v): v is string => v !== null && v !== ""))].sort();

/** X1: everything the clinic holds about the patient; empty lists when it holds nothing. */
export async function exportPatient(db: Db, clinicId: string, match: PatientMatch, now: Date): Promise<PatientExport> {
  return db.transaction((tx) => exportOf(tx, clinicId, keysOf(match), now), {
    isolationLevel: "repeatable read",
    accessMode: "read only",
  });
}

async function exportOf(db: Db, clinicId: string, keys: PatientKeys, now: Date): Promise<PatientExport> {
  const m = matched.parse(await callClinicJsonFunction(db, "clinic_match_patient", clinicId, keys));
  const truncated = new Set<(typeof exportLists)[number]>();
  const capped = <T>(list: (typeof exportLists)[number], rows: readonly T[]): T[] => {
    if (rows.length <= exportListCap) return [...rows];
    truncated.add(list);
    return rows.slice(0, exportListCap);
  };
  const appointmentIds = capped("appointments", m.appointment_ids);
  const seriesIds = capped("series", m.series_ids);
  const entryIds = capped("waitlist_entries", m.waitlist_ids);

  const [clinic] = await db
    .select({ id: clinics.id, name: clinics.name })
    .from(clinics)
    .where(eq(clinics.id, clinicId));
  const appointmentRows = await selectAppointments(db)
    .where(and(eq(appointments.clinicId, clinicId), among(appointments.id, appointmentIds)))
    .orderBy(asc(appointments.startsAt), asc(appointments.id));
  const seriesRows = await db
    .select()
    .from(appointmentSeries)
    .where(and(eq(appointmentSeries.clinicId, clinicId), among(appointmentSeries.id, seriesIds)))
    .orderBy(asc(appointmentSeries.startsAt), asc(appointmentSeries.id));
  const entryRows = await db
    .select()
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.clinicId, clinicId), among(waitlistEntries.id, entryIds)))
    .orderBy(asc(waitlistEntries.createdAt), asc(waitlistEntries.id));
  // The patient's accounts: the matched ones, and the ones the matched rows are for.
  const accounts = distinct([
    ...m.user_ids,
    ...appointmentRows.map((r) => r.patientUserId),
    ...seriesRows.map((r) => r.patientUserId),
    ...entryRows.map((r) => r.patientUserId),
  ]);
  // The messages the erasure would erase, less those found only by a value inside their data: the
  // ones about the patient's rows and the ones to their addresses.
  const messageRows = await db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.clinicId, clinicId),
        or(
          among(messages.appointmentId, appointmentIds),
          among(messages.causeId, [...seriesIds, ...entryIds]),
          m.emails.length === 0 ? undefined : inArray(sql`lower(${messages.to})`, m.emails),
        ),
      ),
    )
    .orderBy(asc(messages.createdAt), asc(messages.id))
    .limit(exportListCap + 1);
  // Audit entries about the patient's rows or accounts, or naming one of their addresses or accounts.
  const patterns = [...m.emails, ...m.phones, ...accounts].map(insideJson);
  const auditRows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.clinicId, clinicId),
        or(
          among(auditLog.resourceId, [...appointmentIds, ...seriesIds, ...entryIds, ...accounts]),
          ...patterns.map((pattern) => sql`${auditLog.details}::text ilike ${pattern}`),
        ),
      ),
    )
    .orderBy(asc(auditLog.createdAt), asc(auditLog.id))
    .limit(exportListCap + 1);
  const memberRows = await db
    .select()
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), among(clinicMembers.userId, accounts)))
    .orderBy(asc(clinicMembers.createdAt), asc(clinicMembers.userId));
  const registrationRows = await db
    .select()
    .from(clinicPatients)
    .where(and(eq(clinicPatients.clinicId, clinicId), among(clinicPatients.userId, accounts)))
    .orderBy(asc(clinicPatients.firstBookedAt), asc(clinicPatients.userId));

  const shown = appointmentRows.map(toAppointment);
  const own = new Set(accounts);
  const uses = shown.flatMap((a) =>
    a.status_history
      .slice(1)
      .filter((change) => change.reason === null && (change.by_user_id === null || own.has(change.by_user_id)))
      .map((change) => ({ appointment_id: a.id, status: change.status, at: change.at, by_user_id: change.by_user_id })),
  );

  const answer: PatientExport = {
    clinic: { id: clinicId, name: clinic?.name ?? "" },
    exported_at: now,
    patient: {
      user_ids: accounts,
      names: distinct([
        ...appointmentRows.map((r) => r.patientName),
        ...seriesRows.map((r) => r.patientName),
        ...entryRows.map((r) => r.patientName),
        ...memberRows.map((r) => r.fullName),
      ]),
      // Only what the rows hold: an address asked for but held by no row (e.g. after X2) is not echoed.
      emails: distinct(
        [
          ...appointmentRows.map((r) => r.patientEmail),
          ...seriesRows.map((r) => r.patientEmail),
          ...entryRows.map((r) => r.patientEmail),
          ...memberRows.map((r) => r.email),
          ...messageRows.map((r) => (r.to.includes("@") ? r.to : null)),
        ].map((e) => e?.toLowerCase() ?? null),
      ),
      phones: distinct([
        ...appointmentRows.map((r) => r.patientPhone),
        ...seriesRows.map((r) => r.patientPhoneE164),
        ...entryRows.map((r) => r.patientPhoneE164),
        ...memberRows.map((r) => r.phoneE164),
        ...messageRows.map((r) => (r.to.includes("@") ? null : r.to)),
      ]),
    },
    registrations: registrationRows.map((r) => ({
      user_id: r.userId,
      first_booked_at: r.firstBookedAt,
      last_booked_at: r.lastBookedAt,
    })),
    memberships: memberRows.map((r) => ({
      user_id: r.userId,
      full_name: r.fullName,
      email: r.email,
      phone_e164: r.phoneE164,
      clinic_role: r.clinicRole,
      is_provider: r.isProvider,
      status: r.status,
      notes: r.notes,
      created_at: r.createdAt,
    })),
    appointments: shown,
    series: seriesRows.map((r) => {
      const { occurrences: _none, ...series } = seriesFromJson({
        id: r.id,
        clinic_id: r.clinicId,
        service_id: r.serviceId,
        provider_id: r.providerId,
        rrule: r.rrule,
        start: r.startsAt,
        mode: r.mode,
        patient: { name: r.patientName, email: r.patientEmail, phone_e164: r.patientPhoneE164 },
        patient_user_id: r.patientUserId,
        notes: r.notes,
        skipped: r.skipped,
        created_at: r.createdAt,
        occurrences: [],
      });
      return { ...series, appointment_ids: shown.filter((a) => a.series_id === r.id).map((a) => a.id) };
    }),
    waitlist_entries: entryRows.map(toWaitlistEntry),
    messages: capped("messages", messageRows).map((r) => ({
      id: r.id,
      appointment_id: r.appointmentId,
      kind: r.kind,
      to: r.to,
      subject: r.subject,
      status: r.status,
      attempts: r.attempts,
      sent_at: r.sentAt,
      created_at: r.createdAt,
    })),
    manage_link_uses: capped("manage_link_uses", uses),
    audit_entries: capped("audit_entries", auditRows).map((r) => ({
      id: r.id,
      clinic_id: r.clinicId,
      action: r.action,
      resource_type: r.resourceType,
      resource_id: r.resourceId,
      user_email: r.userEmail,
      details: r.details,
      created_at: r.createdAt,
    })),
    truncated: exportLists.filter((list) => truncated.has(list)),
  };
  return answer;
}

/** The signed-in user X3 exports: their account's id, e-mail and phone. */
export interface ExportingUser {
  id: string;
  email: string;
  phoneE164: string | null;
}

/**
 * X3: the caller's own data in every clinic where they appear — by their account (member,
 * registered patient, or the patient of an appointment, series or waitlist entry) or by their
 * account's e-mail (any case) on such a row — each clinic's part matched as X1 matches
 * (clinic_match_patient) with the account and the e-mail. Not by phone: the token's
 * `phone_number` claim is not known to be verified, and a claimed number must not open another
 * person's bookings (docs/patient-data.md#x3-across-clinics).
 */
export async function exportMine(db: Db, user: ExportingUser, now: Date): Promise<MyExport> {
  const email = user.email.toLowerCase();
  const found = rowsOf<{ clinic_id: string }>(
    await db.execute(sql`
      select clinic_id from ${clinicMembers} where user_id = ${user.id} or lower(email) = ${email}
      union select clinic_id from ${clinicPatients} where user_id = ${user.id}
      union select clinic_id from ${appointments} where patient_user_id = ${user.id} or lower(patient_email) = ${email}
      union select clinic_id from ${appointmentSeries} where patient_user_id = ${user.id} or lower(patient_email) = ${email}
      union select clinic_id from ${waitlistEntries} where patient_user_id = ${user.id} or lower(patient_email) = ${email}`),
  );
  const clinicIds = [...new Set(found.map((r) => r.clinic_id))].sort();
  const keys: PatientKeys = { user_id: user.id, email, phone: null };
  const parts: PatientExport[] = [];
  // One clinic at a time, each in its own snapshot on the clinic's shard.
  for (const clinicId of clinicIds) {
    parts.push(
      await db.transaction((tx) => exportOf(tx, clinicId, keys, now), {
        isolationLevel: "repeatable read",
        accessMode: "read only",
      }),
    );
  }
  parts.sort((a, b) => a.clinic.name.localeCompare(b.clinic.name) || a.clinic.id.localeCompare(b.clinic.id));
  return { user: { id: user.id, email: user.email, phone_e164: user.phoneE164 }, exported_at: now, clinics: parts };
}
