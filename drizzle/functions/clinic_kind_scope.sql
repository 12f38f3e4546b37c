-- The cache scope of a resource kind in a clinic (§14 resources): a uuid derived from clinic and
-- kind, under which availability_versions counts its changes. Availability answers of services
-- that need the kind depend on it (clinic_schedule_context answers kind_scopes, which the cache
-- keys on), and every booking, move, release or cancel that takes or frees a resource of the kind
-- bumps it (clinic_book_appointment, clinic_book_series, clinic_reschedule_appointment,
-- clinic_sync_busy): §6 coherence, §17 ETags. Changes of the resources themselves (Q1–Q5) bump
-- the clinic's scope instead. IMMUTABLE: one clinic and kind are always one scope.
CREATE OR REPLACE FUNCTION clinic_kind_scope(p_clinic_id uuid, p_kind text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT md5('resource-kind|' || p_clinic_id::text || '|' || p_kind)::uuid
$function$;
