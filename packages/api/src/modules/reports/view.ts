// The shapes of the reports (CONTRACT §20, docs/reports.md): one row schema each, in the contract's
// field order, which is also the order of the CSV columns.
import { z } from "zod";
import { appointmentStatuses } from "@clinic/db";
import { instantOutput } from "../../schemas/wire.ts";

export const reportGroupings = ["provider", "service", "day", "week", "month"] as const;
export type ReportGrouping = (typeof reportGroupings)[number];

/** A row of RP1. */
export const utilizationRowOutput = z.object({
  /** The provider's or service's id, or the first local date of the day, week (Monday) or month. */
  key: z.string(),
  label: z.string(),
  available_minutes: z.number(),
  booked_minutes: z.number(),
  /** booked ÷ available, to 4 decimals; null when nothing was available. */
  utilization: z.number().nullable(),
  appointments: z.number().int(),
  completed: z.number().int(),
  no_show: z.number().int(),
  canceled: z.number().int(),
  canceled_late: z.number().int(),
  /** no_show ÷ (completed + no_show), to 4 decimals; null when both are 0. */
  no_show_rate: z.number().nullable(),
  /** The median of created_at → start, in hours to 2 decimals; null without appointments. */
  median_lead_time_hours: z.number().nullable(),
});
export type UtilizationRow = z.infer<typeof utilizationRowOutput>;

export const utilizationOutput = z.object({ rows: z.array(utilizationRowOutput) });

/** A row of RP2: one appointment, without its notes and answers. */
export const appointmentReportRowOutput = z.object({
  id: z.string(),
  start: instantOutput,
  end: instantOutput,
  /** The start as clinic wall-clock time, `YYYY-MM-DDTHH:MM`. */
  start_local: z.string(),
  status: z.enum(appointmentStatuses),
  provider_id: z.string(),
  provider_name: z.string().nullable(),
  service_id: z.string(),
  service_name: z.string().nullable(),
  duration_min: z.number().int(),
  patient_name: z.string(),
  patient_email: z.string().nullable(),
  patient_phone_e164: z.string().nullable(),
  patient_user_id: z.string().nullable(),
  booked_by_user_id: z.string().nullable(),
  series_id: z.string().nullable(),
  created_at: instantOutput,
  /** created_at → start, in hours to 2 decimals. */
  lead_time_hours: z.number(),
  canceled_at: instantOutput.nullable(),
  /** Canceled inside the clinic's patient cancel cutoff before its start (§9). */
  canceled_late: z.boolean(),
  rescheduled_at: instantOutput.nullable(),
});
export type AppointmentReportRow = z.infer<typeof appointmentReportRowOutput>;

export const appointmentsReportOutput = z.object({ rows: z.array(appointmentReportRowOutput) });
