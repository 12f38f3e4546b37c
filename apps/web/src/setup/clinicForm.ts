// The clinic's settings as a form (C4, CONTRACT §4, §9, §13, §15, §21): the values as typed, the
// labels and hints, and the PATCH body with only what differs from the clinic. Pure, so it is
// tested without a browser (test/setupClinic.test.ts).
import type { RouterInputs } from "@clinic/client";
import type { Clinic } from "./areas.ts";

export type ClinicPatch = Omit<RouterInputs["clinics"]["update"], "clinic_id">;

/** The settings the form edits, as text (numbers typed; empty means "none" where the API has null). */
export interface ClinicDraft {
  name: string;
  timezone: string;
  locale: string;
  online_booking: boolean;
  patient_cancel_cutoff_min: string;
  max_open_bookings_per_patient: string;
  hold_minutes: string;
  no_show_limit: string;
  offer_minutes: string;
  reminder_offsets_min: string;
  guest_holds_max: string;
  retention_days: string;
}

export const clinicLabels: Record<keyof ClinicDraft, string> = {
  name: "Name",
  timezone: "Time zone",
  locale: "Language of patients' e-mails",
  online_booking: "Patients may book online",
  patient_cancel_cutoff_min: "Patients may cancel or move until (minutes before the start)",
  max_open_bookings_per_patient: "Open bookings per patient, at most",
  hold_minutes: "A held time is kept for (minutes)",
  no_show_limit: "No-shows in a year before online booking stops",
  offer_minutes: "A waitlist offer is kept for (minutes)",
  reminder_offsets_min: "Reminders (minutes before the start)",
  guest_holds_max: "Unconfirmed guest bookings kept at once",
  retention_days: "Keep patients' personal values for (days after the appointment)",
};

export const clinicHints: Partial<Record<keyof ClinicDraft, string>> = {
  timezone: "An IANA name such as Europe/Berlin. Hours are the clinic's wall clock in this zone.",
  patient_cancel_cutoff_min: "0 to 10080",
  max_open_bookings_per_patient: "1 to 100",
  hold_minutes: "1 to 60",
  no_show_limit: "1 to 20; empty: no limit",
  offer_minutes: "5 to 1440",
  reminder_offsets_min: "Up to 5, separated by commas, each 5 to 20160 (1440 = a day); empty: none",
  guest_holds_max: "0 to 1000; 0 turns booking as a guest off",
  retention_days: "30 to 3650; empty: kept",
};

export const localeWords: Record<string, string> = { en: "English", de: "German (Deutsch)" };

export const draftOf = (c: Clinic): ClinicDraft => ({
  name: c.name,
  timezone: c.timezone,
  locale: c.locale,
  online_booking: c.online_booking,
  patient_cancel_cutoff_min: String(c.patient_cancel_cutoff_min),
  max_open_bookings_per_patient: String(c.max_open_bookings_per_patient),
  hold_minutes: String(c.hold_minutes),
  no_show_limit: c.no_show_limit === null ? "" : String(c.no_show_limit),
  offer_minutes: String(c.offer_minutes),
  reminder_offsets_min: c.reminder_offsets_min.join(", "),
  guest_holds_max: String(c.guest_holds_max),
  retention_days: c.retention_days === null ? "" : String(c.retention_days),
});

/** The page's own checks: only what it needs to build a request (a number where one is needed). */
export function draftProblems(d: ClinicDraft): Record<string, string> {
  const out: Record<string, string> = {};
  const whole = (field: keyof ClinicDraft, text: string, optional: boolean) => {
    const t = text.trim();
    if (t === "" && optional) return;
    if (!/^\d+$/.test(t)) out[field] = `${clinicLabels[field]}: please give a whole number.`;
  };
  whole("patient_cancel_cutoff_min", d.patient_cancel_cutoff_min, false);
  whole("max_open_bookings_per_patient", d.max_open_bookings_per_patient, false);
  whole("hold_minutes", d.hold_minutes, false);
  whole("no_show_limit", d.no_show_limit, true);
  whole("offer_minutes", d.offer_minutes, false);
  whole("guest_holds_max", d.guest_holds_max, false);
  whole("retention_days", d.retention_days, true);
  const offsets = d.reminder_offsets_min.split(",").map((s) => s.trim());
  if (offsets.some((o) => o !== "" && !/^\d+$/.test(o)))
    out.reminder_offsets_min = `${clinicLabels.reminder_offsets_min}: whole numbers separated by commas.`;
  return out;
}

/**
 * The PATCH body: only the settings that differ from the clinic, so a save changes exactly what
 * the person changed. Call it once `draftProblems` found nothing (numbers are whole numbers then).
 */
export function patchOf(c: Clinic, d: ClinicDraft): ClinicPatch {
  const patch: ClinicPatch = {};
  const num = (text: string) => Number(text.trim());
  const orNull = (text: string) => (text.trim() === "" ? null : num(text));
  if (d.name !== c.name) patch.name = d.name;
  if (d.timezone.trim() !== c.timezone) patch.timezone = d.timezone.trim();
  if (d.locale !== c.locale && (d.locale === "en" || d.locale === "de")) patch.locale = d.locale;
  if (d.online_booking !== c.online_booking) patch.online_booking = d.online_booking;
  if (num(d.patient_cancel_cutoff_min) !== c.patient_cancel_cutoff_min)
    patch.patient_cancel_cutoff_min = num(d.patient_cancel_cutoff_min);
  if (num(d.max_open_bookings_per_patient) !== c.max_open_bookings_per_patient)
    patch.max_open_bookings_per_patient = num(d.max_open_bookings_per_patient);
  if (num(d.hold_minutes) !== c.hold_minutes) patch.hold_minutes = num(d.hold_minutes);
  if (num(d.offer_minutes) !== c.offer_minutes) patch.offer_minutes = num(d.offer_minutes);
  if (num(d.guest_holds_max) !== c.guest_holds_max) patch.guest_holds_max = num(d.guest_holds_max);
  if (orNull(d.no_show_limit) !== c.no_show_limit) patch.no_show_limit = orNull(d.no_show_limit);
  if (orNull(d.retention_days) !== c.retention_days) patch.retention_days = orNull(d.retention_days);
  const offsets = d.reminder_offsets_min
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(Number);
  if (offsets.join(",") !== c.reminder_offsets_min.join(",")) patch.reminder_offsets_min = offsets;
  return patch;
}
