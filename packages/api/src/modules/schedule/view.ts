import { z } from "zod";
import { type closures, scopes, type workHours } from "@clinic/db";
import { formatTimeOfDay } from "../../domain/timezone.ts";
import { instantOutput } from "../../schemas/wire.ts";

/** A weekly work-hour period as the API shows it (times of day in clinic wall-clock). */
export const workHourOutput = z.object({
  id: z.string(),
  scope: z.enum(scopes),
  clinic_id: z.string(),
  provider_id: z.string().nullable(),
  weekday: z.number().int(),
  opens_at: z.string(),
  closes_at: z.string(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type WorkHourView = z.infer<typeof workHourOutput>;

export const toWorkHour = (row: typeof workHours.$inferSelect): WorkHourView => ({
  id: row.id,
  scope: row.scope,
  clinic_id: row.clinicId,
  provider_id: row.providerId,
  weekday: row.weekday,
  opens_at: formatTimeOfDay(row.opensMin),
  closes_at: formatTimeOfDay(row.closesMin),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** A closure (clinic-wide or of one provider) as the API shows it. */
export const closureOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  scope: z.enum(scopes),
  provider_id: z.string().nullable(),
  starts_at: instantOutput,
  ends_at: instantOutput,
  reason: z.string().nullable(),
  created_at: instantOutput,
});
export type ClosureView = z.infer<typeof closureOutput>;

export const toClosure = (row: typeof closures.$inferSelect): ClosureView => ({
  id: row.id,
  clinic_id: row.clinicId,
  scope: row.scope,
  provider_id: row.providerId,
  starts_at: row.startsAt,
  ends_at: row.endsAt,
  reason: row.reason,
  created_at: row.createdAt,
});
