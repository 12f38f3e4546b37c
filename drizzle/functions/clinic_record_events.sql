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
-- An appointment event may come as its appointment's snapshot (p_appointments[i], from
-- clinic_appointment_snapshot) with p_data[i] holding only the event's own keys (previous_status, …)
-- or null: the row keeps the snapshot, not its JSON (docs/events.md#what-an-event-stores; a third of
-- a booking's WAL), and clinic_event_data renders the same data when the event is read. The planners
-- get the whole data, as before.
CREATE OR REPLACE FUNCTION clinic_record_events(p_clinic_id uuid, p_type text, p_data jsonb[],
                                                p_appointments appointment_snapshot[] DEFAULT NULL)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_count integer := coalesce(cardinality(p_data), 0);
  v_ids uuid[] := '{}';
  v_seq bigint;
  v_data jsonb;
BEGIN
  IF v_count = 0 THEN
    RETURN;
  END IF;
  FOR i IN 1 .. v_count LOOP
    v_ids := v_ids || clinic_uuid_v7();
    v_data := clinic_event_data(p_clinic_id, p_data[i], p_appointments[i]);
    PERFORM clinic_plan_message(p_clinic_id, clinic_event_message_kind(p_type, v_data), v_ids[i], v_data);
    PERFORM clinic_plan_write_back(p_clinic_id, p_type, v_data);
  END LOOP;
  -- An UPDATE first: the clinic's counter row nearly always exists, and an upsert that finds it
  -- locks it (a WAL record of its own, 54 bytes a booking) before it updates it.
  UPDATE event_counters SET last_seq = last_seq + v_count WHERE clinic_id = p_clinic_id RETURNING last_seq INTO v_seq;
  IF v_seq IS NULL THEN
    INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, v_count)
    ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + v_count
    RETURNING last_seq INTO v_seq;
  END IF;
  IF v_count = 1 THEN
    -- One event (every writer but the reminder sweep): a plain insert, which Citus routes without
    -- planning a select.
    INSERT INTO events (clinic_id, seq, id, type, data, appointment)
    VALUES (p_clinic_id, v_seq, v_ids[1], p_type, p_data[1], p_appointments[1]);
  ELSE
    INSERT INTO events (clinic_id, seq, id, type, data, appointment)
    SELECT p_clinic_id, v_seq - v_count + n, v_ids[n], p_type, p_data[n], p_appointments[n]
    FROM generate_series(1, v_count) AS n;
  END IF;
END $function$;
