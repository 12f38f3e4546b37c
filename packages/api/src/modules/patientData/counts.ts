import { z } from "zod";

/**
 * What clinic_scrub_patient answers, and so an erasure (X2's `erased`) and a retention run: how many
 * rows of each kind lost personal values.
 */
export const scrubCounts = z.object({
  appointments: z.number().int(),
  messages: z.number().int(),
  waitlist_entries: z.number().int(),
  events: z.number().int(),
  deliveries: z.number().int(),
  audit_entries: z.number().int(),
});
export type ScrubCounts = z.infer<typeof scrubCounts>;
