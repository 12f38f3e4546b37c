-- Deletes the expired holds in the way of a write (an expired hold keeps its row, and the exclusion
-- constraints cannot read the clock: docs/front-desk.md) and answers how many: the provider's holds
-- overlapping the new occupied range and the patient's overlapping the new time. The one home of
-- that rule: clinic_clear_expired_holds (a move, first) and clinic_book_appointment (a booking, only
-- when the constraints refused its time, trying again only when this deleted something) call it.
CREATE OR REPLACE FUNCTION clinic_cleared_expired_holds(p_clinic_id uuid, p_providers uuid[], p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_patient uuid, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_deleted integer;
BEGIN
  DELETE FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.status = 'held' AND NOT clinic_occupies(a.status, a.held_until, p_now)
    AND ((a.provider_id = ANY (p_providers) AND a.occupied_start < p_occupied_end AND a.occupied_end > p_occupied_start)
      OR (p_patient IS NOT NULL AND a.patient_user_id = p_patient AND a.starts_at < p_end AND a.ends_at > p_start));
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END $function$;
