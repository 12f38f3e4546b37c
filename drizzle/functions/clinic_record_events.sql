-- Records events of one type of the SQL writers in the transaction of their change (§10), in the
-- order given, each with the patient's message (clinic_plan_message, by clinic_event_message_kind)
-- and the write-back into the provider's calendars (clinic_plan_write_back). Webhooks read the feed
-- from their own cursors (clinic_webhook_feed), so nothing is written here for them
-- (docs/events.md#webhooks). §10 E1 is gap-free in commit order: the events are numbered by the
-- clinic's event_counters row, bumped once by their count, whose lock is held until the commit; it is
-- taken last, so the clinic's writers wait for each other only for their commit (§17;
-- docs/performance.md#a-gap-free-feed-without-waiting). The one home of an event's numbering:
-- clinic_record_event records one (the booking, series, reschedule, status and confirmation
-- writers), clinic_due_reminders a page of reminders in three statements. The TypeScript writers
-- record theirs with recordChanges (modules/events/record.ts), which plans through the same planners.
CREATE OR REPLACE FUNCTION clinic_record_events(p_clinic_id uuid, p_type text, p_data jsonb[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_count integer := coalesce(cardinality(p_data), 0);
  v_ids uuid[] := '{}';
  v_seq bigint;
BEGIN
  IF v_count = 0 THEN
    RETURN;
  END IF;
  FOR i IN 1 .. v_count LOOP
    v_ids := v_ids || clinic_uuid_v7();
    PERFORM clinic_plan_message(p_clinic_id, clinic_event_message_kind(p_type, p_data[i]), v_ids[i], p_data[i]);
    PERFORM clinic_plan_write_back(p_clinic_id, p_type, p_data[i]);
  END LOOP;
  INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, v_count)
  ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + v_count
  RETURNING last_seq INTO v_seq;
  IF v_count = 1 THEN
    -- One event (every writer but the reminder sweep): a plain insert, which Citus routes without
    -- planning a select.
    INSERT INTO events (clinic_id, seq, id, type, data) VALUES (p_clinic_id, v_seq, v_ids[1], p_type, p_data[1]);
  ELSE
    INSERT INTO events (clinic_id, seq, id, type, data)
    SELECT p_clinic_id, v_seq - v_count + d.n, v_ids[d.n], p_type, d.data
    FROM unnest(p_data) WITH ORDINALITY AS d(data, n);
  END IF;
END $function$;
