-- unaccent() is only STABLE (it depends on the dictionary search path); an index expression needs
-- an IMMUTABLE function, so pin the dictionary explicitly.
CREATE OR REPLACE FUNCTION immutable_unaccent(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $function$;
