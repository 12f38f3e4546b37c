-- An appointment as the API shows it (its snapshot, clinic_appointment_snapshot, rendered by
-- clinic_snapshot_json, the shape's one home), or null when the clinic has no such appointment. The
-- data of the events the erasure and a series record; clinic_appointment_view and
-- clinic_series_json build on it. The other writers take the snapshot itself, which their events
-- keep (clinic_record_events).
CREATE OR REPLACE FUNCTION clinic_appointment_json(p_clinic_id uuid, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN clinic_snapshot_json(p_clinic_id, clinic_appointment_snapshot(p_clinic_id, p_id));
END $function$;
