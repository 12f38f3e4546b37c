-- T4 (§13): releases a hold, which is deleted (not canceled), so its time is free again at once:
-- its creator's own, or as STAFF (or a global ADMIN, p.admin) anyone's. A member below STAFF who
-- names another caller's hold is told that their role is too low (403 FORBIDDEN); a caller who is
-- not a member (a patient releasing their own hold, T3) gets 404 NOT_FOUND for anyone else's,
-- which shows no other patient's data (§9). Frees the shared provider's time and the resources
-- (clinic_sync_busy) and bumps the version (clinic_bookings_changed). Called by releaseHold
-- (modules/booking/status.ts) for T4, and for L5 when a guest declines their hold
-- (modules/manage/manage.ts). SET enable_seqscan off; a generic plan on PostgreSQL only (DO block).
CREATE OR REPLACE FUNCTION clinic_release_hold(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_staff boolean;
  v_provider uuid;
BEGIN
  v_staff := coalesce((p->>'admin')::boolean, false) OR EXISTS (
    SELECT 1 FROM clinic_members m
    WHERE m.clinic_id = p_clinic_id AND m.user_id = v_user AND m.clinic_role IN ('STAFF', 'CLINIC_ADMIN'));
  DELETE FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.id = (p->>'id')::uuid AND a.status = 'held'
    AND (v_staff OR a.booked_by_user_id = v_user)
  RETURNING a.provider_id INTO v_provider;
  IF v_provider IS NULL THEN
    IF NOT v_staff
       AND EXISTS (SELECT 1 FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = (p->>'id')::uuid AND a.status = 'held')
       AND EXISTS (SELECT 1 FROM clinic_members m WHERE m.clinic_id = p_clinic_id AND m.user_id = v_user) THEN
      RETURN jsonb_build_object('error', 'FORBIDDEN', 'detail', 'only STAFF may release a hold that another caller made', 'extra', '{}'::jsonb);
    END IF;
    RETURN jsonb_build_object('error', 'NOT_FOUND', 'detail', 'hold not found: it is not yours, or was already released or booked', 'extra', '{}'::jsonb);
  END IF;
  PERFORM clinic_sync_busy(p_clinic_id, (p->>'id')::uuid, ARRAY[v_provider], now());
  PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_provider]);
  RETURN jsonb_build_object('released', true);
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_release_hold(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
