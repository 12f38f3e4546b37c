-- The schedule a utilization report (CONTRACT §20 RP1, docs/reports.md) computes available minutes
-- from, in one read: the clinic's providers (every provider member, and the one a report names),
-- its services (deleted ones too, flagged: their appointments still count), the weekly hours, the
-- range's date overrides and closures, the providers' own calendars' busy time (§18; a stale
-- calendar's all-time marker is left out: it says "do not offer now", not what the time was) and
-- shared providers' time taken in other clinics (§14; holds left out: they take no time in a
-- report). The same rows clinic_schedule_context reads for availability, without a service and
-- without the clinic's own appointments, which a report aggregates in SQL instead
-- (modules/reports/utilization.ts); the rules applied to them are the slot engine's (openTime in
-- domain/slots.ts).
CREATE OR REPLACE FUNCTION clinic_report_schedule(p_clinic_id uuid, p jsonb)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_from timestamptz := (p->>'from')::timestamptz;
  v_to timestamptz := (p->>'to')::timestamptz;
  v_date date := (p->>'date')::date;
  v_date_to date := (p->>'date_to')::date;
  v_named uuid := nullif(p->>'provider_id', '')::uuid;
  v_providers uuid[];
  v_shared uuid[];
  v_elsewhere json := '[]'::json;
BEGIN
  SELECT coalesce(array_agg(m.user_id ORDER BY m.user_id), '{}') INTO v_providers
  FROM clinic_members m
  WHERE m.clinic_id = p_clinic_id AND (m.is_provider OR m.user_id = v_named);
  -- (Its own statement: on Citus provider_busy lives on other shards than this clinic's rows.)
  SELECT array_agg(s.user_id) INTO v_shared FROM shared_providers s WHERE s.user_id = ANY (v_providers);
  IF v_shared IS NOT NULL THEN
    SELECT coalesce(json_agg(json_build_object('provider_id', b.user_id, 'starts_at', clinic_iso_instant(b.occupied_start),
             'ends_at', clinic_iso_instant(b.occupied_end))), '[]'::json) INTO v_elsewhere
    FROM provider_busy b
    WHERE b.user_id = ANY (v_shared) AND b.clinic_id <> p_clinic_id AND b.occupied_start < v_to AND b.occupied_end > v_from
      AND b.held_until IS NULL;
  END IF;
  RETURN json_build_object(
    'providers', coalesce((
      SELECT json_agg(json_build_object('user_id', m.user_id, 'full_name', m.full_name, 'status', m.status,
               'is_provider', m.is_provider) ORDER BY m.user_id)
      FROM clinic_members m WHERE m.clinic_id = p_clinic_id AND m.user_id = ANY (v_providers)), '[]'::json),
    'services', coalesce((
      SELECT json_agg(json_build_object('id', s.id, 'name', s.name, 'provider_id', s.provider_id,
               'deleted', s.deleted_at IS NOT NULL) ORDER BY s.id)
      FROM services s WHERE s.clinic_id = p_clinic_id), '[]'::json),
    'hours', coalesce((
      SELECT json_agg(json_build_object('provider_id', w.provider_id, 'weekday', w.weekday, 'opens_min', w.opens_min, 'closes_min', w.closes_min))
      FROM work_hours w WHERE w.clinic_id = p_clinic_id AND (w.provider_id IS NULL OR w.provider_id = ANY (v_providers))), '[]'::json),
    'overrides', coalesce((
      SELECT json_agg(json_build_object('provider_id', o.provider_id, 'date', o.date, 'opens_min', op.opens_min, 'closes_min', op.closes_min))
      FROM date_overrides o
      LEFT JOIN date_override_periods op ON op.clinic_id = o.clinic_id AND op.override_id = o.id AND op.clinic_id = p_clinic_id
      WHERE o.clinic_id = p_clinic_id AND o.date BETWEEN v_date AND v_date_to AND (o.provider_id IS NULL OR o.provider_id = ANY (v_providers))), '[]'::json),
    'closures', coalesce((
      SELECT json_agg(json_build_object('provider_id', c.provider_id, 'starts_at', clinic_iso_instant(c.starts_at), 'ends_at', clinic_iso_instant(c.ends_at), 'reason', c.reason))
      FROM closures c
      WHERE c.clinic_id = p_clinic_id AND c.starts_at < v_to AND c.ends_at > v_from AND (c.provider_id IS NULL OR c.provider_id = ANY (v_providers))), '[]'::json),
    'external', coalesce((
      SELECT json_agg(json_build_object('provider_id', c.provider_id, 'starts_at', clinic_iso_instant(c.starts_at), 'ends_at', clinic_iso_instant(c.ends_at)))
      FROM calendar_busy c
      WHERE c.clinic_id = p_clinic_id AND c.provider_id = ANY (v_providers) AND NOT c.stale AND c.ends_at > v_from AND c.starts_at < v_to), '[]'::json),
    'elsewhere', v_elsewhere);
END $function$;
