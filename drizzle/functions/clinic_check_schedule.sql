-- Re-checks, in a write, that the schedule a read checked (p_schedule: scope id → schedule version,
-- the clinic's and providers') is still the schedule (§6, §8: B1 re-checks in its transaction that
-- the start is a slot of the current availability). A changed version raises CL002 (STALE): the
-- write answers {stale} and the caller reads again (at most three times, then 409 CONFLICT).
-- Each scope's availability_versions row is taken FOR KEY SHARE (made first if the scope never
-- changed): a schedule change (invalidateAvailability, FOR UPDATE first) waits for it, and it waits
-- for one in progress, while bookings never wait for each other on it.
-- Called by clinic_book_appointment (the clinic and the provider who got the slot),
-- clinic_reschedule_appointment and clinic_book_series (every scope, before any occurrence).
-- docs/performance.md#re-checking-the-schedule-without-making-bookings-wait-for-each-other
CREATE OR REPLACE FUNCTION clinic_check_schedule(p_clinic_id uuid, p_schedule jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_scope uuid;
  v_version bigint;
BEGIN
  FOR v_scope IN SELECT k::uuid FROM jsonb_object_keys(p_schedule) AS k ORDER BY 1 LOOP
    SELECT v.schedule_version INTO v_version FROM availability_versions v
    WHERE v.clinic_id = p_clinic_id AND v.scope_id = v_scope FOR KEY SHARE;
    IF NOT FOUND THEN
      -- A scope never changed has no row yet: make one to hold the lock on.
      INSERT INTO availability_versions (clinic_id, scope_id, version, schedule_version)
      VALUES (p_clinic_id, v_scope, 0, 0) ON CONFLICT DO NOTHING;
      SELECT v.schedule_version INTO v_version FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND v.scope_id = v_scope FOR KEY SHARE;
    END IF;
    IF v_version <> (p_schedule->>v_scope::text)::bigint THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
  END LOOP;
END $function$;
