-- Records an event of the SQL writers (CONTRACT §10 E1, docs/events.md): its webhook deliveries
-- (clinic_plan_deliveries, the one planner), the patient's message (clinic_plan_message, the one
-- planner of messages) and its row, numbered in commit order by the clinic's counter row, which is
-- locked last so that it serialises only the commit of the clinic's writers. The TypeScript writers
-- record theirs with recordChanges (modules/events/record.ts), which plans through the same two.
CREATE OR REPLACE FUNCTION clinic_record_event(p_clinic_id uuid, p_type text, p_data jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_event_id uuid := gen_random_uuid();
  v_seq bigint;
BEGIN
  PERFORM clinic_plan_deliveries(p_clinic_id, ARRAY[v_event_id], ARRAY[p_type]);
  PERFORM clinic_plan_message(p_clinic_id, clinic_event_message_kind(p_type, p_data), v_event_id, p_data);
  INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, 1)
  ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + 1
  RETURNING last_seq INTO v_seq;
  INSERT INTO events (clinic_id, seq, id, type, data) VALUES (p_clinic_id, v_seq, v_event_id, p_type, p_data);
END $function$;
