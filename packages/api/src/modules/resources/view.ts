import { z } from "zod";
import type { resourceClosures, resources } from "@clinic/db";
import { instantOutput } from "../../schemas/wire.ts";

const kindPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * A resource kind (`treatment_room`, `ultrasound`): 1–64 lower-case letters, digits, `_` and `-`,
 * starting with a letter or digit — the format the database's resources_kind_format CHECK holds.
 * Services name the kinds they need in the same format (`required_resource_kinds`).
 */
export const resourceKindInput = z
  .string()
  .trim()
  .regex(kindPattern, "must be 1-64 lower-case letters, digits, _ and - (starting with a letter or digit)");

/**
 * A service's `required_resource_kinds`: distinct kinds, at most 10, kept sorted (the order means
 * nothing: a booking takes one resource of each kind).
 */
export const requiredResourceKindsInput = z
  .array(resourceKindInput)
  .max(10, "at most 10 kinds")
  .refine((kinds) => new Set(kinds).size === kinds.length, "must not name a kind twice")
  .transform((kinds) => [...kinds].sort());

/** A resource's name, trimmed: 1–200 characters. */
export const resourceNameInput = z.string().trim().min(1, "must not be empty").max(200);

/** A resource as the API shows it (Q1–Q3). */
export const resourceOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  name: z.string(),
  kind: z.string(),
  is_active: z.boolean(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type ResourceView = z.infer<typeof resourceOutput>;

export type ResourceRow = typeof resources.$inferSelect;

export const toResource = (row: ResourceRow): ResourceView => ({
  id: row.id,
  clinic_id: row.clinicId,
  name: row.name,
  kind: row.kind,
  is_active: row.isActive,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/**
 * A closure of one resource (Q5): the clinic and provider closure's shape (`schedule`'s
 * closureOutput) with scope `resource`, its `resource_id`, and `provider_id` always null.
 */
export const resourceClosureOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  scope: z.literal("resource"),
  provider_id: z.null(),
  resource_id: z.string(),
  starts_at: instantOutput,
  ends_at: instantOutput,
  reason: z.string().nullable(),
  created_at: instantOutput,
});
export type ResourceClosureView = z.infer<typeof resourceClosureOutput>;

export const toResourceClosure = (row: typeof resourceClosures.$inferSelect): ResourceClosureView => ({
  id: row.id,
  clinic_id: row.clinicId,
  scope: "resource",
  provider_id: null,
  resource_id: row.resourceId,
  starts_at: row.startsAt,
  ends_at: row.endsAt,
  reason: row.reason,
  created_at: row.createdAt,
});
