-- An event's `data` as E1 and the webhooks show it (§10), from its row: the stored JSON, or for an
-- appointment event stored as a snapshot (docs/events.md#what-an-event-stores) the snapshot's JSON
-- (clinic_snapshot_json) with the event's own keys (previous_status, previous_start, …) stored in
-- `data`. Every reader of `events` reads `data` through it: the feed (listEvents), the webhooks'
-- batches (clinic_webhook_feed) and retries (deliver.ts), and the erasure (clinic_scrub_patient).
CREATE OR REPLACE FUNCTION clinic_event_data(p_clinic_id uuid, p_data jsonb, p_appointment appointment_snapshot)
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN (p_appointment).id IS NULL THEN p_data
              ELSE clinic_snapshot_json(p_clinic_id, p_appointment) || coalesce(p_data, '{}'::jsonb) END
$function$;
