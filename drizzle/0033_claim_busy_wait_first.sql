-- clinic_claim_busy and clinic_claim_resources take p_wait_first (docs/front-desk.md, after a lost
-- race): their new texts are in drizzle/functions/, applied after this; the old signatures are
-- dropped here so that no call finds two.
DROP FUNCTION IF EXISTS clinic_claim_busy(uuid, uuid, uuid, timestamptz, timestamptz, uuid, timestamptz, timestamptz);--> statement-breakpoint
DROP FUNCTION IF EXISTS clinic_claim_resources(uuid, uuid, jsonb, timestamptz, timestamptz, uuid, jsonb, timestamptz, timestamptz);
