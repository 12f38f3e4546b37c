-- The front desk (CONTRACT §13, docs/front-desk.md). Every status but `canceled` occupies the
-- appointment's time; a hold only until its `held_until`. This is the one definition of it: the
-- exclusion constraints below keep every row that is not canceled (an expired hold in the way is
-- deleted by the write that needs its time, in that write's transaction), and everything that
-- asks "is this time taken at that moment" calls this function.
CREATE OR REPLACE FUNCTION clinic_occupies(p_status text, p_held_until timestamp with time zone, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT p_status <> 'canceled' AND (p_status <> 'held' OR p_held_until > p_at)
$function$;
