-- The schedule a check was made on (scope id → schedule version) must still be the schedule: each
-- scope's row is held with a key-share lock, which a schedule change (FOR UPDATE first) waits for,
-- and which waits for a schedule change in progress; bookings do not block each other on it.
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
