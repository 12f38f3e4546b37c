-- Extensions needed by later migrations: exclusion constraints on (uuid, range) need btree_gist;
-- fuzzy service search uses pg_trgm and unaccent.
CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
-- unaccent() is only STABLE (it depends on the dictionary search path); an index expression needs
-- an IMMUTABLE function, so pin the dictionary explicitly.
CREATE OR REPLACE FUNCTION immutable_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_text(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.immutable_unaccent($1)) $$;
