import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  erasePatient,
  erasureOutput,
  exportMine,
  exportPatient,
  myExportOutput,
  type PatientMatch,
  patientExportOutput,
} from "../modules/patientData/index.ts";
import { validationFailed } from "../errors.ts";
import { phoneE164, uuid } from "../schemas/wire.ts";
import { clinicProcedure, protectedProcedure } from "../trpc.ts";

const tags = ["patient data"] as const;

/** Who the request is about (§21): exactly one of a user id, an e-mail address or a phone number. */
export const patientMatchInput = {
  patient_user_id: uuid.optional(),
  email: z.email().max(320).optional(),
  phone_e164: phoneE164.optional(),
};

/** The one identifier given, or 400 naming the fields. */
export function matchOf(input: { patient_user_id?: string; email?: string; phone_e164?: string }): PatientMatch {
  const given = [input.patient_user_id, input.email, input.phone_e164].filter((v) => v !== undefined).length;
  if (given !== 1) throw validationFailed("patient_user_id", "give exactly one of patient_user_id, email, phone_e164");
  if (input.patient_user_id !== undefined) return { patient_user_id: input.patient_user_id };
  if (input.email !== undefined) return { email: input.email };
  return { phone_e164: input.phone_e164 ?? "" };
}

/** X1–X3: a patient's data — their export, and its erasure from a clinic (docs/patient-data.md). */
export const patientDataRouter = {
  export: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/patients/export",
        summary:
          "Everything the clinic holds about a patient (GDPR Art. 15, 20): contact data, appointments with their history, answers and notes, series, waitlist entries, messages, manage-link uses, audit entries. `Accept: application/fhir+json`: a FHIR R4 Bundle (collection) of the Patient, their Appointments and QuestionnaireResponses",
        tags,
        fhir: "patient-export",
      },
    })
    .input(z.object({ clinic_id: uuid, ...patientMatchInput }))
    .output(patientExportOutput)
    .query(({ ctx, input }) => exportPatient(ctx.db, ctx.clinic.id, matchOf(input), ctx.now())),

  myExport: protectedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/me/export",
        summary:
          "Your own data in every clinic where you appear (GDPR Art. 15, 20): per clinic, what X1 exports about you, matched by your account and its e-mail and phone",
        tags,
      },
    })
    .input(z.object({}).optional())
    .output(myExportOutput)
    .query(({ ctx }) => exportMine(ctx.db, ctx.user, ctx.now())),

  erase: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/patients/erase",
        summary:
          "Erase a patient from the clinic (GDPR Art. 17): future appointments canceled without a message, then every personal value removed or replaced by one pseudonym; the schedule and report figures stay. Idempotent",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...patientMatchInput, reason: z.string().trim().min(1).max(500) }))
    .output(erasureOutput)
    .mutation(({ ctx, input }) =>
      erasePatient(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          match: matchOf(input),
          reason: input.reason,
          actorEmail: ctx.user.email,
          key: ctx.pseudonymKey,
        },
        ctx.now(),
      ),
    ),
} satisfies TRPCRouterRecord;
