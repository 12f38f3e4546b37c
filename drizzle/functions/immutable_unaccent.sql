-- unaccent() with its dictionary pinned: unaccent() alone is only STABLE (it depends on the
-- dictionary search path), and an index expression needs an IMMUTABLE function. Called only by
-- search_text, which the fuzzy searches and the services_name_trgm_idx index use (§5 S7: accents).
CREATE OR REPLACE FUNCTION immutable_unaccent(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $function$;
