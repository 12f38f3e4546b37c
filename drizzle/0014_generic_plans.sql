-- The hot paths' functions plan their statements once per connection (docs/performance.md#planning-once).
--
-- A PL/pgSQL statement with parameters is planned anew on every call for as long as PostgreSQL
-- prefers custom plans, and it kept preferring them here: a booking's read and write planned some
-- thirty statements on every call, about 40% of the database's CPU per booking in the benchmark
-- (perf: the parser, the planner and catalog lookups). Each statement of these functions names
-- the clinic and is driven by its primary key or its (clinic, …) index, so the generic plan is the
-- same plan: plan it once per connection.
--
-- Not on Citus: there a statement inside a delegated function is planned by Citus, which routes it
-- to the clinic's shard by the value of the clinic argument; a generic plan has no value to route
-- by ("could not create distributed plan"), so Citus keeps custom plans.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_schedule_context(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_book_appointment(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_reschedule_appointment(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_set_status(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_release_hold(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_expire_confirmation(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
    ALTER FUNCTION clinic_book_series(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
--> statement-breakpoint
-- An instant as JSON text. Declared IMMUTABLE, its body (to_char) is only STABLE, so PostgreSQL
-- never inlined it: every statement that called it parsed and planned the body again (some 35
-- times a booking). STABLE is what it is, and a STABLE SQL function is inlined.
ALTER FUNCTION clinic_iso_instant(timestamptz) STABLE;
