-- A time-ordered UUID (RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits) for the
-- rows a booking inserts under a B-tree index on their id: the appointment's and its event's
-- (clinic_book_appointment, clinic_record_event). A random (version 4) id puts each insert on a
-- random leaf page of (clinic_id, id), and after every checkpoint the first change of a page is
-- written whole to the WAL: across 100 clinics that was most of a booking's WAL (issue 49,
-- docs/performance.md#what-a-booking-writes). Ordered by time, a clinic's inserts go to the end of
-- its range, a few pages. The id shows when the row was made, which its resource says anyway
-- (created_at, occurred_at). PostgreSQL 18 has uuidv7(); this one runs on 15. Copied to every node
-- on Citus (it has no clinic argument).
CREATE OR REPLACE FUNCTION clinic_uuid_v7()
 RETURNS uuid
 LANGUAGE sql
 VOLATILE PARALLEL SAFE
AS $function$
  -- The random UUID's first 6 bytes replaced by the milliseconds, and its version nibble (the high
  -- half of byte 6) turned from 4 (0100) to 7 (0111): set_bit numbers a byte's bits from the right,
  -- so these are bits 52 and 53. The variant bits (10) are the random UUID's already.
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              placing substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$function$;
