-- The cache scope of a resource kind: answers of services that need the kind depend on it, and
-- every change of what a resource of the kind holds bumps it.
CREATE OR REPLACE FUNCTION clinic_kind_scope(p_clinic_id uuid, p_kind text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT md5('resource-kind|' || p_clinic_id::text || '|' || p_kind)::uuid
$function$;
