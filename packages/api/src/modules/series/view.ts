import { z } from "zod";
import { seriesModes } from "@clinic/db";
import { reasonCodes } from "../../domain/slots.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { appointmentOutput } from "../booking/index.ts";

/** Why an occurrence is not booked: the §8 reason codes of V2, per provider, or a refusal of the write. */
export const occurrenceReason = z.object({
  /** A §8 reason code, or the write's refusal (e.g. PATIENT_DOUBLE_BOOKED). */
  code: z.union([z.enum(reasonCodes), z.string()]),
  detail: z.string(),
  provider_id: z.string().optional(),
});
export const occurrenceConflict = z.object({ start: instantOutput, reasons: z.array(occurrenceReason) });
export type OccurrenceConflict = z.infer<typeof occurrenceConflict>;

const seriesCommon = {
  clinic_id: z.string(),
  service_id: z.string(),
  /** The provider asked for, else the service's own; null: each occurrence's own, by the any-provider rule. */
  provider_id: z.string().nullable(),
  rrule: z.string(),
  start: instantOutput,
  mode: z.enum(seriesModes),
  patient: z.object({ name: z.string(), email: z.string().nullable(), phone_e164: z.string().nullable() }),
  patient_user_id: z.string().nullable(),
  notes: z.string().nullable(),
};

/** A series (R1–R3): its occurrences by start, each an appointment with its own status. */
export const seriesOutput = z.object({
  id: z.string(),
  ...seriesCommon,
  occurrences: z.array(appointmentOutput),
  /** Occurrences left out (skip_unavailable), with why. */
  skipped: z.array(occurrenceConflict),
  created_at: instantOutput,
});
export type SeriesView = z.infer<typeof seriesOutput>;

/** A dry run (R1 with dry_run=true): what would be booked and what could not; nothing is written. */
export const seriesPreviewOutput = z.object({
  dry_run: z.literal(true),
  ...seriesCommon,
  /**
   * The occurrences the request would book, each with the provider that would get it: the free
   * ones. An occurrence that cannot be booked is only in `conflicts` (and `skipped`). When
   * `bookable` is true a real request right after books exactly these (schedule unchanged); when
   * false it is refused (409) and books none.
   */
  occurrences: z.array(
    z.object({
      start: instantOutput,
      end: instantOutput,
      start_local: z.string(),
      bookable: z.boolean(),
      provider_id: z.string().nullable(),
      reasons: z.array(occurrenceReason),
    }),
  ),
  /** Whether the request would book (all_or_nothing: every occurrence; skip_unavailable: at least one). */
  bookable: z.boolean(),
  conflicts: z.array(occurrenceConflict),
  /** What the write would leave out (skip_unavailable); always present, `[]` when nothing would be. */
  skipped: z.array(occurrenceConflict),
});
export type SeriesPreview = z.infer<typeof seriesPreviewOutput>;
