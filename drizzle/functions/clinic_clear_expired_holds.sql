-- §13: an expired hold occupies nothing, and a booking over it succeeds. The exclusion constraints
-- still see its row, so a write deletes, in its own transaction, the expired holds in its way: the
-- given providers' whose occupied time overlaps [p_occupied_start, p_occupied_end), and the
-- patient's whose own time overlaps [p_start, p_end) (appointments_patient_no_overlap).
-- Two writers over one expired hold: the second waits for the first's delete, then the exclusion
-- constraint decides between their inserts. Called by clinic_book_appointment (for all candidates
-- at once) and clinic_reschedule_appointment.
CREATE OR REPLACE FUNCTION clinic_clear_expired_holds(p_clinic_id uuid, p_providers uuid[], p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_patient uuid, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.status = 'held' AND NOT clinic_occupies(a.status, a.held_until, p_now)
    AND ((a.provider_id = ANY (p_providers) AND a.occupied_start < p_occupied_end AND a.occupied_end > p_occupied_start)
      OR (p_patient IS NOT NULL AND a.patient_user_id = p_patient AND a.starts_at < p_end AND a.ends_at > p_start));
END $function$;
