-- The availability fast path's lookups (modules/availability/fast.ts) as a function planned once per
-- connection. Sent as a prepared statement, the batch's query was planned anew on every call:
-- PostgreSQL kept preferring a custom plan (its parameters, folded to constants, tell the planner
-- the batch's size), and pg_stat_statements under the bench's cache-hit row showed 0.134 ms of
-- planning against 0.059 ms of execution a call — most of the database's CPU per hit. Inside a
-- PL/pgSQL function with force_generic_plan the query is planned the first time a connection runs
-- it; the call itself is a function scan, cheap to plan. Every row is still filtered by its own
-- clinic: each request's clinic by its primary key, its member row and version rows by
-- (clinic_id, …). Not a clinic_ function: it reads several clinics' rows, and on Citus the fast
-- path steps aside, so it is never called there (docs/performance.md#a-hit-at-the-cost-of-readyz).
CREATE FUNCTION availability_fast_lookups(p_clinic_ids text, p_user_ids text, p_scopes text)
RETURNS TABLE (i int, timezone text, online_booking boolean, role text, versions text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
BEGIN
  RETURN QUERY
  SELECT r.i::int, c.timezone, c.online_booking,
    (SELECT m.clinic_role FROM clinic_members m WHERE m.clinic_id = r.clinic_id AND m.user_id = r.user_id),
    -- Only the scopes asked for (all of the clinic's for an empty list), filtered by the clinic.
    (SELECT coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '')
       FROM availability_versions v
      WHERE v.clinic_id = r.clinic_id
        AND (coalesce(r.scopes, '') = '' OR v.scope_id = ANY (string_to_array(r.scopes, ',')::uuid[])))
  FROM unnest(string_to_array(p_clinic_ids, ',')::uuid[], string_to_array(p_user_ids, ',')::uuid[],
              string_to_array(p_scopes, '|')) WITH ORDINALITY AS r(clinic_id, user_id, scopes, i)
  CROSS JOIN LATERAL (SELECT c.timezone, c.online_booking FROM clinics c WHERE c.id = r.clinic_id LIMIT 1) c;
END
$$;
