-- Appointments as the API shows them (the Appointment resource: §1 instants, §8 buffers and
-- rescheduled_at, §9 patient_user_id and booked_by_user_id, §13 status, held_until and
-- status_history, §14 series_id and resources), one row each of the clinic's p_ids that it has: the
-- one home of the shape. clinic_appointment_json answers one of them (the write functions' answers
-- and their events); clinic_due_reminders reads a page of them in one statement. PL/pgSQL, not
-- SQL: Citus refuses a SQL function over distributed tables called with parameters (it plans
-- before PostgreSQL would inline it); this one runs its query routed to the clinic's shard.
-- appointmentFromJson (modules/booking/clinicFunctions.ts)
-- parses it. Its twin is toAppointment (modules/booking/appointments.ts: B2, B3, U1);
-- packages/api/test/appointmentTwins.test.ts compares the two field by field.
CREATE OR REPLACE FUNCTION clinic_appointments_json(p_clinic_id uuid, p_ids uuid[])
 RETURNS TABLE (id uuid, data jsonb)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT a.id, jsonb_build_object(
      'id', a.id, 'clinic_id', a.clinic_id, 'service_id', a.service_id, 'service_name', s.name,
      'provider_id', a.provider_id, 'provider_name', m.full_name,
      'start', clinic_iso_instant(a.starts_at), 'end', clinic_iso_instant(a.ends_at), 'status', a.status,
      'held_until', clinic_iso_instant(a.held_until), 'status_history', a.status_history,
      'patient', jsonb_build_object('name', a.patient_name, 'email', a.patient_email, 'phone_e164', a.patient_phone_e164),
      'notes', a.notes, 'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min,
      'created_at', clinic_iso_instant(a.created_at), 'updated_at', clinic_iso_instant(a.updated_at),
      'canceled_at', clinic_iso_instant(a.canceled_at), 'rescheduled_at', clinic_iso_instant(a.rescheduled_at),
      'patient_user_id', a.patient_user_id, 'booked_by_user_id', a.booked_by_user_id, 'series_id', a.series_id, 'resources', a.resources)
  FROM appointments a
  JOIN services s ON s.clinic_id = a.clinic_id AND s.id = a.service_id
  JOIN clinic_members m ON m.clinic_id = a.clinic_id AND m.user_id = a.provider_id
  WHERE a.clinic_id = p_clinic_id AND s.clinic_id = p_clinic_id AND m.clinic_id = p_clinic_id AND a.id = ANY (p_ids);
END $function$;
