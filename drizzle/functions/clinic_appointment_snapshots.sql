-- Appointments of a clinic as snapshots (the `appointment_snapshot` type: the appointment's columns
-- that the API shows, and the service's and provider's names of now), one row each of p_ids that the
-- clinic has: the one query of the Appointment resource. clinic_appointments_json renders them
-- (clinic_snapshot_json); the writers keep an appointment event's snapshot as it is
-- (clinic_record_events, docs/events.md#what-an-event-stores). PL/pgSQL for the reason
-- clinic_appointments_json gives: Citus refuses a SQL function over distributed tables called with
-- parameters.
CREATE OR REPLACE FUNCTION clinic_appointment_snapshots(p_clinic_id uuid, p_ids uuid[])
 RETURNS TABLE (id uuid, snapshot appointment_snapshot)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT a.id, ROW(a.id, a.service_id, s.name, a.provider_id, m.full_name, a.starts_at, a.ends_at, a.status,
                   a.held_until, a.status_history, a.patient_name, a.patient_email, a.patient_phone_e164, a.notes,
                   a.buffer_before_min, a.buffer_after_min, a.created_at, a.updated_at, a.canceled_at,
                   a.rescheduled_at, a.patient_user_id, a.booked_by_user_id, a.series_id, a.resources)::appointment_snapshot
  FROM appointments a
  JOIN services s ON s.clinic_id = a.clinic_id AND s.id = a.service_id
  JOIN clinic_members m ON m.clinic_id = a.clinic_id AND m.user_id = a.provider_id
  WHERE a.clinic_id = p_clinic_id AND s.clinic_id = p_clinic_id AND m.clinic_id = p_clinic_id AND a.id = ANY (p_ids);
END $function$;
