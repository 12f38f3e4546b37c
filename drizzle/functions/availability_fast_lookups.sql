-- The lookups of the availability fast path (V1 and O3 answered from the cache; §17: ETag, 304):
-- for each request of a batch, its clinic's zone and online_booking, the caller's role there, and
-- the versions of the scopes the cached answer depends on (all of the clinic's for an empty list).
-- Called only by modules/availability/fast.ts, as the prepared statement fast_availability_lookups,
-- once for all the requests that arrived in one turn (batch.ts).
-- SET plan_cache_mode = force_generic_plan: the query is planned once per connection, not on every
-- call (planning it cost more than running it on a hit); enable_seqscan and enable_bitmapscan off
-- keep that one plan on the (clinic_id, …) indexes rather than a scan of all of the clinic's rows.
-- §12: every row is still filtered by its own clinic. Not a clinic_ function: one call reads
-- several clinics' rows, so on Citus the fast path steps aside and never calls it
-- (docs/performance.md#a-hit-at-the-cost-of-readyz).
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
