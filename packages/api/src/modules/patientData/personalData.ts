// Every place the service keeps personal data (§21, docs/patient-data.md#where-it-is): one list, in
// one place. Erasure and retention (clinic_scrub_patient) remove what is the patient's; the export
// (X1, X3) reads it. packages/api/test/patientData.schema.test.ts plants unique values as a
// patient's name, e-mail, phone, notes and answers, runs every feature that copies them, and fails
// when a column that is not listed here holds one — so a new table or column that copies personal
// data cannot be forgotten.

/** Whose data a column holds. */
export type DataSubject = "patient" | "staff" | "provider" | "user";

export interface PersonalColumn {
  table: string;
  column: string;
  subject: DataSubject;
  /** For JSON columns: the paths that can hold personal values. */
  paths?: readonly string[];
  /** What erasure (and retention) does to it, or why it stays. */
  erasure: string;
}

/** The appointment JSON's personal parts (clinic_appointment_json, clinic_appointment_view). */
const appointmentPaths = ["patient.name", "patient.email", "patient.phone_e164", "notes", "answers[].value"];

export const personalData: readonly PersonalColumn[] = [
  // The patient's own rows.
  { table: "appointments", column: "patient_name", subject: "patient", erasure: "the pseudonym" },
  { table: "appointments", column: "patient_email", subject: "patient", erasure: "null" },
  { table: "appointments", column: "patient_phone_e164", subject: "patient", erasure: "null" },
  { table: "appointments", column: "notes", subject: "patient", erasure: "null" },
  { table: "appointments", column: "answers", subject: "patient", paths: ["[].value"], erasure: "[]" },
  {
    table: "appointments",
    column: "guest_address_hash",
    subject: "patient",
    erasure: "null (a keyed hash of the guest's network address)",
  },
  { table: "appointments", column: "patient_user_id", subject: "patient", erasure: "null (unlinked from the account)" },
  { table: "appointment_series", column: "patient_name", subject: "patient", erasure: "the pseudonym" },
  { table: "appointment_series", column: "patient_email", subject: "patient", erasure: "null" },
  { table: "appointment_series", column: "patient_phone_e164", subject: "patient", erasure: "null" },
  { table: "appointment_series", column: "notes", subject: "patient", erasure: "null" },
  { table: "waitlist_entries", column: "patient_name", subject: "patient", erasure: "the pseudonym" },
  { table: "waitlist_entries", column: "patient_email", subject: "patient", erasure: "null" },
  { table: "waitlist_entries", column: "patient_phone_e164", subject: "patient", erasure: "null" },
  { table: "clinic_patients", column: "user_id", subject: "patient", erasure: "the row is deleted" },
  // Copies.
  { table: "messages", column: "to", subject: "patient", erasure: "the pseudonym; a pending message is skipped" },
  { table: "messages", column: "subject", subject: "patient", erasure: "values replaced by the pseudonym" },
  { table: "messages", column: "data", subject: "patient", paths: appointmentPaths, erasure: "scrubbed" },
  {
    table: "messages",
    column: "last_error",
    subject: "patient",
    erasure: "values replaced (a server may echo the address)",
  },
  { table: "events", column: "data", subject: "patient", paths: appointmentPaths, erasure: "scrubbed" },
  {
    table: "events",
    column: "appointment",
    subject: "patient",
    erasure: "rendered into `data`, scrubbed there, and the snapshot nulled (docs/events.md#what-an-event-stores)",
  },
  {
    table: "webhook_deliveries",
    column: "data",
    subject: "patient",
    paths: ["(webhook.test only; others are rendered from their event)"],
    erasure: "scrubbed",
  },
  { table: "webhook_deliveries", column: "last_error", subject: "patient", erasure: "values replaced" },
  { table: "idempotency_keys", column: "response", subject: "patient", paths: appointmentPaths, erasure: "scrubbed" },
  { table: "audit_log", column: "details", subject: "patient", paths: ["(any)"], erasure: "scrubbed" },
  { table: "jobs", column: "last_error", subject: "patient", erasure: "values replaced" },
  // Not the patient's: kept by erasure, listed so that the schema guard knows them.
  { table: "users", column: "email", subject: "user", erasure: "kept: the account is the user's, across clinics" },
  { table: "users", column: "phone_e164", subject: "user", erasure: "kept: the account is the user's, across clinics" },
  // Sign-in (§22, docs/sign-in.md): the account's, not a clinic's; gone when the session ends.
  { table: "sessions", column: "full_name", subject: "user", erasure: "kept: the session's, until it ends" },
  {
    table: "sessions",
    column: "id_token",
    subject: "user",
    erasure: "kept: the issuer's ID token (logout hint), encrypted, until the session ends",
  },
  { table: "clinic_members", column: "full_name", subject: "staff", erasure: "kept: a member of the clinic" },
  { table: "clinic_members", column: "email", subject: "staff", erasure: "kept" },
  { table: "clinic_members", column: "phone_e164", subject: "staff", erasure: "kept" },
  { table: "clinic_members", column: "notes", subject: "staff", erasure: "kept" },
  { table: "audit_log", column: "user_email", subject: "staff", erasure: "kept: who did it" },
  {
    table: "calendars",
    column: "secret",
    subject: "provider",
    erasure: "kept: the provider's calendar URL and credentials, encrypted (§18)",
  },
];

/** Whether `table.column` is listed. */
export const isPersonalColumn = (table: string, column: string) =>
  personalData.some((entry) => entry.table === table && entry.column === column);
