-- Re-checks, in a write, a provider's daily limit (CONTRACT §8 v1.4, docs/availability.md#a-providers-daily-limit):
-- for each (provider, start) given, the provider's appointments that occupy time starting on the
-- start's clinic-local date (the clinic's IANA zone, so a DST day has 23 or 25 hours) must not
-- exceed their max_daily_appointments; more raises CL002 (STALE): the write answers {stale}, the
-- caller reads again and the engine (explainStart: DAILY_LIMIT) refuses the start or picks another
-- provider. A rule that counts is only true if it is counted under the lock that serializes the
-- provider's bookings: the FOR NO KEY UPDATE of their availability_versions row that
-- clinic_bookings_changed takes, held until commit. So every caller calls this after that bump, in
-- the same transaction: a second booking of the day waits there for the first to commit, and this
-- count (a new statement, a new snapshot) then sees it. Counted earlier — in clinic_check_schedule,
-- whose key-share locks bookings never wait on — two bookings could both take the last place
-- (docs/database-functions.md#adding-a-booking-rule; bookingRules.concurrency.test.ts).
-- Called by clinic_book_appointment, clinic_reschedule_appointment and clinic_book_series.
CREATE OR REPLACE FUNCTION clinic_check_daily_limit(p_clinic_id uuid, p_providers uuid[], p_starts timestamptz[], p_now timestamptz)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_zone text;
  v_day record;
  v_count bigint;
BEGIN
  -- One statement when no provider has a limit (the clinic's zone joined, not read first): this runs
  -- under the provider's version row lock (docs/performance.md#the-hot-clinic).
  FOR v_day IN
    SELECT DISTINCT m.user_id AS provider_id, m.max_daily_appointments AS max_daily, c.timezone AS zone,
           date_trunc('day', x.starts_at AT TIME ZONE c.timezone) AS local_midnight
    FROM unnest(p_providers, p_starts) AS x(provider_id, starts_at)
    JOIN clinic_members m ON m.clinic_id = p_clinic_id AND m.user_id = x.provider_id
    JOIN clinics c ON c.id = p_clinic_id
    WHERE m.clinic_id = p_clinic_id AND m.max_daily_appointments IS NOT NULL
  LOOP
    v_zone := v_day.zone;
    SELECT count(*) INTO v_count FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.provider_id = v_day.provider_id AND clinic_occupies(a.status, a.held_until, p_now)
      AND a.starts_at >= v_day.local_midnight AT TIME ZONE v_zone
      AND a.starts_at < (v_day.local_midnight + interval '1 day') AT TIME ZONE v_zone;
    IF v_count > v_day.max_daily THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
  END LOOP;
END $function$;
