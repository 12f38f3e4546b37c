-- Records an event of the SQL writers in the transaction of its change (§10), with the patient's
-- message (clinic_plan_message, by clinic_event_message_kind) and the write-back into the
-- provider's calendars (clinic_plan_write_back). Webhooks read the feed from their own cursors
-- (clinic_webhook_feed), so nothing is written here for them (docs/events.md#webhooks). §10 E1 is
-- gap-free in commit order: the event is numbered by the clinic's event_counters row, whose lock is held until the commit; it is taken last, so the
-- clinic's writers wait for each other only for their commit (§17;
-- docs/performance.md#a-gap-free-feed-without-waiting). Called by clinic_book_appointment,
-- clinic_book_series, clinic_reschedule_appointment, clinic_set_status and
-- clinic_expire_confirmation, after their change. The TypeScript writers record theirs with
-- recordChanges (modules/events/record.ts), which plans through the same planners.
CREATE OR REPLACE FUNCTION clinic_record_event(p_clinic_id uuid, p_type text, p_data jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_event_id uuid := clinic_uuid_v7();
  v_seq bigint;
BEGIN
  PERFORM clinic_plan_message(p_clinic_id, clinic_event_message_kind(p_type, p_data), v_event_id, p_data);
  PERFORM clinic_plan_write_back(p_clinic_id, p_type, p_data);
  INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, 1)
  ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + 1
  RETURNING last_seq INTO v_seq;
  INSERT INTO events (clinic_id, seq, id, type, data) VALUES (p_clinic_id, v_seq, v_event_id, p_type, p_data);
END $function$;
