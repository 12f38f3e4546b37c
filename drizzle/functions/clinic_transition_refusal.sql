-- §13 T1's transition table: null when the change from p_from to p_to is allowed, for this caller,
-- at this moment; else what refuses it: FORBIDDEN (confirm and decline are STAFF's, the others
-- STAFF's or the appointment's provider's), INVALID_TRANSITION (not in the table),
-- TOO_EARLY_OR_LATE (check-in from 24 hours before the start until its end), NOT_STARTED (a no-show
-- only once the start has passed), ENDED (a late arrival only before the end). Called by
-- clinic_set_status, which turns these into 403 or 409 with their detail. IMMUTABLE: the moment is
-- an argument.
CREATE OR REPLACE FUNCTION clinic_transition_refusal(p_from text, p_to text, p_staff boolean, p_is_provider boolean, p_start timestamp with time zone, p_end timestamp with time zone, p_now timestamp with time zone)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF (p_from, p_to) IN (('pending', 'booked'), ('pending', 'canceled')) THEN
    RETURN CASE WHEN p_staff THEN NULL ELSE 'FORBIDDEN' END;
  END IF;
  IF (p_from, p_to) NOT IN (('booked', 'arrived'), ('arrived', 'booked'), ('arrived', 'completed'), ('booked', 'no_show'), ('no_show', 'arrived')) THEN
    RETURN 'INVALID_TRANSITION';
  END IF;
  IF NOT (p_staff OR p_is_provider) THEN
    RETURN 'FORBIDDEN';
  END IF;
  IF p_from = 'booked' AND p_to = 'arrived' AND NOT (p_now >= p_start - interval '24 hours' AND p_now < p_end) THEN
    RETURN 'TOO_EARLY_OR_LATE';
  END IF;
  IF p_to = 'no_show' AND p_now < p_start THEN
    RETURN 'NOT_STARTED';
  END IF;
  IF p_from = 'no_show' AND p_now >= p_end THEN
    RETURN 'ENDED';
  END IF;
  RETURN NULL;
END $function$;
