-- The write of a guest's hold (O4 without a token, §15), called by bookAppointment
-- (modules/booking/book.ts) instead of clinic_book_appointment when the request carries a client
-- address (bookAsGuest, router/shared/booking.ts). Takes what clinic_book_appointment takes, plus
-- guest_address (the client address's keyed hash, §11), and answers as it does.
-- §15 v1.3, guest holds cannot hoard a clinic's time: at most 3 live guest holds per address and 1
-- per e-mail (case-insensitive), else 409 BOOKING_LIMIT with lapses_at; at most the clinic's
-- guest_holds_max in all, else 429 RATE_LIMITED with retry_after_s (0 turns guest booking off).
-- A hold counts while it is held and its held_until is ahead (appointments_guest_holds_idx).
-- Under concurrency and with any number of processes: the clinic's row is locked FOR NO KEY UPDATE
-- first (guest bookings of the clinic queue; other bookings, whose foreign keys take only a
-- key-share lock, and reads do not wait), then counted, booked and marked, all before the commit.
-- A row lock, not an advisory lock: on Citus it is on the clinic's node (docs/manage-links.md).
CREATE OR REPLACE FUNCTION clinic_book_guest_hold(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql
-- Planned by its indexes, as the other writes of the hot paths (drizzle/0016_plans_by_index.sql).
SET enable_seqscan = off
AS $$
DECLARE
  v_now timestamptz := (p->>'now')::timestamptz;
  v_address text := p->>'guest_address';
  v_email text := lower(p->>'patient_email');
  v_max integer;
  v_holds record;
  v_answer jsonb;
BEGIN
  SELECT c.guest_holds_max INTO v_max FROM clinics c WHERE c.id = p_clinic_id FOR NO KEY UPDATE;
  SELECT count(*) FILTER (WHERE a.guest_address_hash = v_address) AS by_address,
         min(a.held_until) FILTER (WHERE a.guest_address_hash = v_address) AS address_lapses,
         count(*) FILTER (WHERE lower(a.patient_email) = v_email) AS by_email,
         min(a.held_until) FILTER (WHERE lower(a.patient_email) = v_email) AS email_lapses,
         count(*) AS total,
         min(a.held_until) AS total_lapses
  INTO v_holds
  FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.status = 'held' AND a.guest_address_hash IS NOT NULL AND a.held_until > v_now;
  IF v_holds.by_address >= 3 THEN
    RETURN jsonb_build_object('error', 'BOOKING_LIMIT',
      'detail', format('3 bookings made from your address at this clinic are waiting for confirmation, its maximum: confirm one by the link we e-mailed, or book again after %s, when the oldest of them lapses',
        clinic_iso_instant(v_holds.address_lapses)),
      'extra', jsonb_build_object('max_guest_holds_per_address', 3, 'lapses_at', clinic_iso_instant(v_holds.address_lapses)));
  END IF;
  IF v_holds.by_email >= 1 THEN
    RETURN jsonb_build_object('error', 'BOOKING_LIMIT',
      'detail', format('a booking for this e-mail address at this clinic is waiting for confirmation: confirm it by the link we e-mailed, or book again after %s, when it lapses',
        clinic_iso_instant(v_holds.email_lapses)),
      'extra', jsonb_build_object('max_guest_holds_per_email', 1, 'lapses_at', clinic_iso_instant(v_holds.email_lapses)));
  END IF;
  IF v_holds.total >= v_max THEN
    RETURN jsonb_build_object('error', 'RATE_LIMITED',
      'detail', CASE WHEN v_max = 0
        THEN 'this clinic takes no guest bookings online: sign in to book, or call the clinic'
        ELSE format('this clinic has too many bookings waiting for confirmation; retry after %s, when the oldest of them lapses',
          clinic_iso_instant(v_holds.total_lapses)) END,
      -- Guest booking turned off (0): no lapse will let one in, so an hour.
      'extra', jsonb_build_object('retry_after_s', CASE WHEN v_max = 0 OR v_holds.total_lapses IS NULL THEN 3600
        ELSE greatest(1, ceil(extract(epoch FROM v_holds.total_lapses - v_now)))::integer END));
  END IF;
  v_answer := clinic_book_appointment(p_clinic_id, p);
  IF v_answer ? 'appointment' THEN
    UPDATE appointments a SET guest_address_hash = v_address
    WHERE a.clinic_id = p_clinic_id AND a.id = (v_answer->'appointment'->>'id')::uuid;
  END IF;
  RETURN v_answer;
END $$;
--> statement-breakpoint
-- Planned once per connection on PostgreSQL, as the other writes of the hot paths
-- (drizzle/0014_generic_plans.sql); not on Citus, which cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_book_guest_hold(uuid, jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
