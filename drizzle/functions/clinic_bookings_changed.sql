-- 0008, numbered by the clock.
CREATE OR REPLACE FUNCTION clinic_bookings_changed(p_clinic_id uuid, p_providers uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_provider uuid;
BEGIN
  FOREACH v_provider IN ARRAY (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_providers) AS x) LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, v_provider, clinic_version_clock())
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
  END LOOP;
END $function$;
