-- Deletes the expired holds in the way of a write (clinic_expired_holds_in_way, the rule's one home)
-- and answers how many. Called by clinic_clear_expired_holds (a move, first; a booking's caller
-- apart, clinic_clear_holds_in_way) and clinic_book_appointment (a booking, only when the
-- constraints refused its time, trying again only when this deleted something). A hold another
-- writer deleted or booked meanwhile is skipped: the delete waits for its row and checks it again.
CREATE OR REPLACE FUNCTION clinic_cleared_expired_holds(p_clinic_id uuid, p_providers uuid[], p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_patient uuid, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids uuid[] := clinic_expired_holds_in_way(p_clinic_id, p_providers, p_occupied_start, p_occupied_end, p_patient, p_start, p_end, p_now);
  v_deleted integer;
BEGIN
  IF cardinality(v_ids) = 0 THEN
    RETURN 0;
  END IF;
  DELETE FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids) AND a.status = 'held' AND NOT clinic_occupies(a.status, a.held_until, p_now);
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END $function$;
