-- §13: an expired hold occupies nothing, and a booking over it succeeds. The exclusion constraints
-- still see its row, so a write deletes, in its own transaction, the expired holds in its way: the
-- given providers' whose occupied time overlaps [p_occupied_start, p_occupied_end), and the
-- patient's whose own time overlaps [p_start, p_end) (appointments_patient_no_overlap).
-- Two writers over one expired hold: the second waits for the first's delete, then the exclusion
-- constraint decides between their inserts. Called by clinic_reschedule_appointment before it
-- writes; the rule itself is clinic_cleared_expired_holds, which also answers how many went (a
-- booking calls that one, after the constraints refused its time).
CREATE OR REPLACE FUNCTION clinic_clear_expired_holds(p_clinic_id uuid, p_providers uuid[], p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_patient uuid, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM clinic_cleared_expired_holds(p_clinic_id, p_providers, p_occupied_start, p_occupied_end, p_patient, p_start, p_end, p_now);
END $function$;
