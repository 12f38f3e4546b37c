-- A status change the transition table (§13, T1) allows, by someone it allows it to, at a time it
-- allows it; null when it is not one (the caller explains which rule refused it).
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
