-- An appointment as the API shows it (0009), now with its series and resources.
CREATE OR REPLACE FUNCTION clinic_appointment_json(p_clinic_id uuid, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (
    SELECT jsonb_build_object(
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
    WHERE a.clinic_id = p_clinic_id AND s.clinic_id = p_clinic_id AND m.clinic_id = p_clinic_id AND a.id = p_id
  );
END $function$;
