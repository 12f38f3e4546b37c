-- §13: whether an appointment occupies its time at p_at. Every status but canceled does; a hold
-- only until its held_until ("booked" in §6, §8 and §9 means exactly this). The one definition in
-- the database: whatever asks "is this time taken at that moment" calls it
-- (clinic_book_appointment, clinic_reschedule_appointment, clinic_clear_expired_holds,
-- clinic_schedule_context). The exclusion constraints keep every row that is not canceled; an
-- expired hold in the way is deleted by the write that needs its time (clinic_clear_expired_holds).
-- Its twin in TypeScript is occupyingStatuses (packages/db/src/schema/appointments.ts), held to it
-- by packages/api/test/frontDesk.test.ts. IMMUTABLE: the moment is an argument.
CREATE OR REPLACE FUNCTION clinic_occupies(p_status text, p_held_until timestamp with time zone, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT p_status <> 'canceled' AND (p_status <> 'held' OR p_held_until > p_at)
$function$;
