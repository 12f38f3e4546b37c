-- Bumps the availability version (the cache's, not the schedule's) of each scope given: the
-- providers whose booked time changed and the resource kinds (clinic_kind_scope) taken or freed.
-- §6: a write that changes availability invalidates the cache in its own transaction, so a read
-- after its response, on any process, sees the change; §17: the ETags of V1 and O3 change with it.
-- A no-key update of rows in sorted order, numbered by clinic_version_clock: the key-share locks of
-- other bookings' schedule re-checks (clinic_check_schedule) do not wait for it.
-- Called by clinic_book_appointment, clinic_book_series, clinic_reschedule_appointment,
-- clinic_set_status, clinic_release_hold and clinic_expire_confirmation. The TypeScript writers use
-- invalidateAvailability(…, {schedule: false}) (modules/availability/versions.ts).
CREATE OR REPLACE FUNCTION clinic_bookings_changed(p_clinic_id uuid, p_providers uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_provider uuid;
  v_clock bigint;
BEGIN
  FOREACH v_provider IN ARRAY (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_providers) AS x) LOOP
    v_clock := clinic_version_clock();
    -- An UPDATE first: the row nearly always exists (the re-check made it), and an upsert that
    -- finds it locks it (a WAL record of its own, 54 bytes a booking) before it updates it.
    UPDATE availability_versions v SET version = greatest(v.version + 1, v_clock)
    WHERE v.clinic_id = p_clinic_id AND v.scope_id = v_provider;
    IF NOT FOUND THEN
      INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, v_provider, v_clock)
      ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
    END IF;
  END LOOP;
END $function$;
