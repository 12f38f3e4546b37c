-- The availability fast path's lookups (modules/availability/fast.ts) as a function planned once per
-- connection. Sent as a prepared statement, the batch's query was planned anew on every call:
-- PostgreSQL kept preferring a custom plan (its parameters, folded to constants, tell the planner
-- the batch's size), and pg_stat_statements under the bench's cache-hit row showed 0.134 ms of
-- planning against 0.059 ms of execution a call — most of the database's CPU per hit. Inside a
-- PL/pgSQL function with force_generic_plan the query is planned the first time a connection runs
-- it; the call itself is a function scan, cheap to plan. Bitmap scans are off: for the version
-- rows the generic plan preferred a bitmap scan of all of the clinic's rows, filtered, to an index
-- scan of the scopes asked for (61 against 46 buffers for five requests of three scopes each).
-- Every row is still filtered by its own clinic: each request's clinic by its primary key, its
-- member row and version rows by (clinic_id, …). Not a clinic_ function: it reads several clinics' rows, and on Citus the fast
-- path steps aside, so it is never called there (docs/performance.md#a-hit-at-the-cost-of-readyz).
CREATE OR REPLACE FUNCTION availability_fast_lookups(p_clinic_ids text, p_user_ids text, p_scopes text)
 RETURNS TABLE(i integer, timezone text, online_booking boolean, role text, versions text)
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
AS $function$
BEGIN
  RETURN QUERY
  SELECT r.i::int, c.timezone, c.online_booking,
    (SELECT m.clinic_role FROM clinic_members m WHERE m.clinic_id = r.clinic_id AND m.user_id = r.user_id),
    -- Only the scopes asked for, found by the primary key; all of the clinic's for an empty list.
    -- Two subqueries, not one with an OR, so that the scoped one can look its rows up by clinic
    -- and scope: a clinic's version rows lie on as many pages as it has rows (they were made when
    -- its providers were first booked or changed), and a hit depends on a few of them.
    CASE WHEN coalesce(r.scopes, '') = '' THEN
      (SELECT coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '')
         FROM availability_versions v WHERE v.clinic_id = r.clinic_id)
    ELSE
      (SELECT coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '')
         FROM availability_versions v
        WHERE v.clinic_id = r.clinic_id AND v.scope_id = ANY (string_to_array(r.scopes, ',')::uuid[]))
    END
  FROM unnest(string_to_array(p_clinic_ids, ',')::uuid[], string_to_array(p_user_ids, ',')::uuid[],
              string_to_array(p_scopes, '|')) WITH ORDINALITY AS r(clinic_id, user_id, scopes, i)
  CROSS JOIN LATERAL (SELECT c.timezone, c.online_booking FROM clinics c WHERE c.id = r.clinic_id LIMIT 1) c;
END
$function$;
