-- The expired holds in the way of a write (an expired hold keeps its row, and the exclusion
-- constraints cannot read the clock: docs/front-desk.md): the provider's holds overlapping the new
-- occupied range and the patient's overlapping the new time. The one home of that rule:
-- clinic_cleared_expired_holds deletes them; clinic_book_appointment asks, when the constraints
-- refused its time and its caller clears them apart (p.clear_holds_apart), whether there are any.
CREATE OR REPLACE FUNCTION clinic_expired_holds_in_way(p_clinic_id uuid, p_providers uuid[], p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_patient uuid, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT coalesce(array_agg(a.id), '{}') FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.status = 'held' AND NOT clinic_occupies(a.status, a.held_until, p_now)
      AND ((a.provider_id = ANY (p_providers) AND a.occupied_start < p_occupied_end AND a.occupied_end > p_occupied_start)
        OR (p_patient IS NOT NULL AND a.patient_user_id = p_patient AND a.starts_at < p_end AND a.ends_at > p_start)));
END $function$;
