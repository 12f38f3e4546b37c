CREATE OR REPLACE FUNCTION search_text(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT lower(public.immutable_unaccent($1)) $function$;
