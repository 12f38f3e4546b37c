import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type ClinicLocale, clinicLocales, clinicMembers, clinics, type Db } from "@clinic/db";
import { notFound, returnedRow } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";
import type { Caller } from "../access/index.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { scheduleReminderSweep } from "../booking/index.ts";
import { scheduleRetention } from "../patientData/index.ts";

export const clinicOutput = z.object({
  id: z.string(),
  name: z.string(),
  timezone: z.string(),
  /** Patients may book themselves (the /v1/booking routes); docs/patients.md. */
  online_booking: z.boolean(),
  /** How many minutes before the start a patient may still cancel or move an appointment. */
  patient_cancel_cutoff_min: z.number().int(),
  /** How many future booked appointments one patient may hold in the clinic. */
  max_open_bookings_per_patient: z.number().int(),
  /** Minutes before each appointment's start at which an appointment.reminder event is recorded. */
  reminder_offsets_min: z.array(z.number().int()),
  /** How long a hold keeps its slot, in minutes (§13). */
  hold_minutes: z.number().int(),
  /** Patients with this many no-shows in the last 365 days may not book online; null: no limit (§13). */
  no_show_limit: z.number().int().nullable(),
  /** The language of the e-mails patients get: `en` or `de` (§15). */
  locale: z.enum(clinicLocales),
  /** How long a waitlist offer holds its slot, in minutes (§15). */
  offer_minutes: z.number().int(),
  /**
   * The most unconfirmed guest holds (§15 guests) the clinic keeps at once; past it a guest's booking
   * is 429 RATE_LIMITED. 0 turns guest booking off (docs/manage-links.md#guest-holds).
   */
  guest_holds_max: z.number().int(),
  /**
   * Days after its end that an appointment keeps its patient's personal values; then a daily job
   * pseudonymizes it and its copies (§21, docs/patient-data.md#retention). Null: kept.
   */
  retention_days: z.number().int().nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type ClinicView = z.infer<typeof clinicOutput>;

type ClinicRow = typeof clinics.$inferSelect;

export const toClinic = (row: ClinicRow): ClinicView => ({
  id: row.id,
  name: row.name,
  timezone: row.timezone,
  online_booking: row.onlineBooking,
  patient_cancel_cutoff_min: row.patientCancelCutoffMin,
  max_open_bookings_per_patient: row.maxOpenBookingsPerPatient,
  reminder_offsets_min: row.reminderOffsetsMin,
  hold_minutes: row.holdMinutes,
  no_show_limit: row.noShowLimit,
  locale: row.locale,
  offer_minutes: row.offerMinutes,
  guest_holds_max: row.guestHoldsMax,
  retention_days: row.retentionDays,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const clinicPages = keyset<ClinicRow>(
  "asc",
  { column: clinics.name, kind: "text", of: (r) => r.name },
  { column: clinics.id, kind: "uuid", of: (r) => r.id },
);

/** The settings of a clinic, as the API names them. */
export interface ClinicSettings {
  name?: string | undefined;
  timezone?: string | undefined;
  online_booking?: boolean | undefined;
  patient_cancel_cutoff_min?: number | undefined;
  max_open_bookings_per_patient?: number | undefined;
  reminder_offsets_min?: number[] | undefined;
  hold_minutes?: number | undefined;
  no_show_limit?: number | null | undefined;
  locale?: ClinicLocale | undefined;
  offer_minutes?: number | undefined;
  guest_holds_max?: number | undefined;
  retention_days?: number | null | undefined;
}

const columnsOf = (settings: ClinicSettings) => ({
  name: settings.name,
  timezone: settings.timezone,
  onlineBooking: settings.online_booking,
  patientCancelCutoffMin: settings.patient_cancel_cutoff_min,
  maxOpenBookingsPerPatient: settings.max_open_bookings_per_patient,
  reminderOffsetsMin: settings.reminder_offsets_min
    ? [...new Set(settings.reminder_offsets_min)].sort((a, b) => b - a)
    : undefined,
  holdMinutes: settings.hold_minutes,
  noShowLimit: settings.no_show_limit,
  locale: settings.locale,
  offerMinutes: settings.offer_minutes,
  guestHoldsMax: settings.guest_holds_max,
  retentionDays: settings.retention_days,
});

/**
 * Creates a clinic (the caller has been checked to be a global ADMIN); a retention period starts its
 * job, reminder offsets its reminder sweep (from `now`, the caller's clock).
 */
export async function createClinic(db: Db, input: ClinicSettings & { name: string }, now: Date): Promise<ClinicView> {
  return db.transaction(async (tx) => {
    const row = returnedRow(
      await tx
        .insert(clinics)
        .values({ ...columnsOf(input), name: input.name })
        .returning(),
      "clinic",
    );
    if (row.retentionDays !== null) await scheduleRetention(tx, row.id, row.retentionDays);
    await scheduleReminderSweep(tx, row.id, row.reminderOffsetsMin, now);
    return toClinic(row);
  });
}

/** Clinics by name: every clinic for a global ADMIN, else the caller's own; keyset-paginated. */
export async function listClinics(db: Db, caller: Caller, page: { limit: number; cursor?: string | undefined }) {
  const memberOf = caller.isAdmin
    ? undefined
    : sql`exists (select 1 from ${clinicMembers} where ${clinicMembers.clinicId} = ${clinics.id} and ${clinicMembers.userId} = ${caller.id})`;
  const rows = await db
    .select()
    .from(clinics)
    .where(and(memberOf, clinicPages.after(page.cursor)))
    .orderBy(...clinicPages.orderBy)
    .limit(page.limit + 1);
  const { items, next_cursor } = clinicPages.page(rows, page.limit);
  return { clinics: items.map(toClinic), next_cursor };
}

/** Reads one clinic (the caller has been authorised for it). */
export async function getClinic(db: Db, clinicId: string): Promise<ClinicView> {
  const [row] = await db.select().from(clinics).where(eq(clinics.id, clinicId));
  if (!row) throw notFound("clinic");
  return toClinic(row);
}

/**
 * Changes a clinic's settings; a new zone moves every wall-clock period, so availability is
 * invalidated; a new retention period runs the retention job now (and daily), none removes it; new
 * reminder offsets give the clinic its reminder sweep (from `now`, the caller's clock), none removes it.
 */
export async function updateClinic(db: Db, clinicId: string, patch: ClinicSettings, now: Date): Promise<ClinicView> {
  const set = columnsOf(patch);
  // An empty PATCH changes nothing and writes nothing, so updated_at stays (an empty SET is no SQL).
  if (Object.values(set).every((value) => value === undefined)) return getClinic(db, clinicId);
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ timezone: clinics.timezone, retentionDays: clinics.retentionDays })
      .from(clinics)
      .where(eq(clinics.id, clinicId))
      .for("update");
    if (!before) throw notFound("clinic");
    const [row] = await tx.update(clinics).set(set).where(eq(clinics.id, clinicId)).returning();
    if (!row) throw notFound("clinic");
    if (row.timezone !== before.timezone) await invalidateAvailability(tx, clinicId, [clinicId]);
    if (row.retentionDays !== before.retentionDays) await scheduleRetention(tx, clinicId, row.retentionDays);
    if (patch.reminder_offsets_min) await scheduleReminderSweep(tx, clinicId, row.reminderOffsetsMin, now);
    return toClinic(row);
  });
}
