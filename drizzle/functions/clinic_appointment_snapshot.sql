-- One appointment of the clinic as a snapshot (clinic_appointment_snapshots), or null when the clinic
-- has no such appointment. The SQL writers take it once after their change: they answer its JSON
-- (clinic_snapshot_json) and record their event with it (clinic_record_event).
CREATE OR REPLACE FUNCTION clinic_appointment_snapshot(p_clinic_id uuid, p_id uuid)
 RETURNS appointment_snapshot
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT s.snapshot FROM clinic_appointment_snapshots(p_clinic_id, ARRAY[p_id]) s);
END $function$;
