-- Text as the fuzzy searches compare it: lower-cased, accents removed (immutable_unaccent).
-- IMMUTABLE, so that the GIN trigram index services_name_trgm_idx on search_text(name) serves
-- S7 (§5: fuzzy over typos, word order, case and accents; modules/catalog/search.ts). Also used by
-- P1's `q` (modules/providers/providers.ts) and B2's patient search
-- (modules/booking/appointments.ts).
CREATE OR REPLACE FUNCTION search_text(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT lower(public.immutable_unaccent($1)) $function$;
