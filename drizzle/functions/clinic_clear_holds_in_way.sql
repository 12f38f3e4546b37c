-- A booking's expired holds in the way, cleared apart (§13): called by bookInZone
-- (modules/booking/book.ts) in a statement of its own when clinic_book_appointment answered
-- {clear_holds}, with the same p (its candidates, occupied range, patient, start, end and now),
-- before it writes again. Committed on its own, the delete is not held open while the booking
-- inserts, so racers for the hold's time race as for a free time (docs/front-desk.md). Answers
-- {cleared: how many}.
CREATE OR REPLACE FUNCTION clinic_clear_holds_in_way(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN jsonb_build_object('cleared', clinic_cleared_expired_holds(p_clinic_id,
    ARRAY(SELECT x::uuid FROM jsonb_array_elements_text(p->'candidates') AS x),
    (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz,
    nullif(p->>'patient_user_id', '')::uuid, (p->>'start')::timestamptz, (p->>'end')::timestamptz,
    (p->>'now')::timestamptz));
END $function$;
