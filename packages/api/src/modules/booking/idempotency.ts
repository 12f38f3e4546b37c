// Idempotency keys: a booking write sent again with its key answers what the first one did; the
// key is claimed and replayed in the write itself (clinic_claim_key, drizzle/0008_hot_paths.sql).
import { createHash } from "node:crypto";

/** The hash a key's request is stored and compared by. */
export const requestHash = (request: readonly unknown[]) =>
  createHash("sha256").update(JSON.stringify(request)).digest("hex");
