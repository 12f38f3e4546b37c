import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { waitlistStatuses } from "@clinic/db";
import {
  cancelMyWaitlistEntry,
  createWaitlistEntry,
  listMyWaitlist,
  listWaitlist,
  staffEntryPatient,
  waitlistEntryOutput,
} from "../modules/waitlist/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { localDate, phoneE164, timeOfDay, uuid } from "../schemas/wire.ts";
import { clinicProcedure, onlineBookingProcedure, protectedProcedure } from "../trpc.ts";

const tags = ["waitlist"] as const;
const patientName = z.string().trim().min(1).max(200);

/** What an entry asks for (WL1 and WL4 share it). */
const wish = {
  clinic_id: uuid,
  service_id: uuid,
  provider_id: uuid.optional(),
  from_date: localDate,
  to_date: localDate,
  weekdays: z.array(z.number().int().min(1).max(7)).min(1).max(7).optional(),
  earliest: timeOfDay.optional(),
  latest: timeOfDay.optional(),
};

const wishOf = (input: {
  service_id: string;
  provider_id?: string | undefined;
  from_date: string;
  to_date: string;
  weekdays?: number[] | undefined;
  earliest?: number | undefined;
  latest?: number | undefined;
}) => ({
  serviceId: input.service_id,
  providerId: input.provider_id,
  fromDate: input.from_date,
  toDate: input.to_date,
  weekdays: input.weekdays,
  earliest: input.earliest,
  latest: input.latest,
});

const statusFilter = z
  .string()
  .regex(
    new RegExp(`^(${waitlistStatuses.join("|")})(,(${waitlistStatuses.join("|")}))*$`),
    `must be one or more of ${waitlistStatuses.join(", ")}, separated by commas`,
  )
  .transform((text) => waitlistStatuses.filter((status) => text.split(",").includes(status)));

/** WL1–WL4: patients put themselves on a clinic's waitlist and see or leave their entries; staff list and add entries. */
export const waitlistRouter = {
  // Authenticated even where the booking page is open to guests: the entry is the caller's.
  join: onlineBookingProcedure(protectedProcedure)
    .meta({
      rest: {
        method: "POST",
        path: "/v1/booking/clinics/:clinic_id/waitlist",
        status: 201,
        summary: "Wait for a free time of a service (you are offered the first one that fits, as a hold)",
        tags,
        errors: ["NOT_A_PROVIDER"],
      },
    })
    .input(
      z.strictObject({
        ...wish,
        patient: z.strictObject({ name: patientName, phone_e164: phoneE164.optional() }).optional(),
      }),
    )
    .output(waitlistEntryOutput)
    .mutation(({ ctx, input }) =>
      createWaitlistEntry(
        ctx.db,
        {
          ...wishOf(input),
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          patient: {
            name: input.patient?.name ?? ctx.user.email.slice(0, 200),
            email: ctx.user.email,
            phone_e164: input.patient?.phone_e164 ?? ctx.user.phoneE164 ?? null,
          },
          patientUserId: ctx.user.id,
          createdByUserId: ctx.user.id,
        },
        ctx.now(),
      ),
    ),

  mine: protectedProcedure
    .meta({ rest: { method: "GET", path: "/v1/me/waitlist", summary: "Your waitlist entries in every clinic", tags } })
    .input(z.object({ ...pageInput }))
    .output(z.object({ entries: z.array(waitlistEntryOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) => listMyWaitlist(ctx.db, ctx.user.id, input)),

  leave: protectedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/me/waitlist/:id",
        status: 204,
        summary: "Leave a waitlist (an open offer is released)",
        tags,
        errors: ["INVALID_TRANSITION"],
      },
    })
    .input(z.strictObject({ id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => cancelMyWaitlistEntry(ctx.db, ctx.user.id, input.id)),

  list: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/waitlist",
        summary: "The clinic's waitlist by created_at",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, service_id: uuid.optional(), status: statusFilter.optional(), ...pageInput }))
    .output(z.object({ entries: z.array(waitlistEntryOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listWaitlist(ctx.db, ctx.clinic.id, {
        serviceId: input.service_id,
        status: input.status,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),

  add: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/waitlist",
        status: 201,
        summary: "Put a patient on the waitlist (a registered patient by patient_user_id, or name and e-mail)",
        tags,
        errors: ["NOT_A_PROVIDER"],
      },
    })
    .input(
      z.strictObject({
        ...wish,
        patient_user_id: uuid.optional(),
        patient: z
          .strictObject({ name: patientName, email: z.email().max(320).optional(), phone_e164: phoneE164.optional() })
          .optional(),
      }),
    )
    .output(waitlistEntryOutput)
    .mutation(async ({ ctx, input }) =>
      createWaitlistEntry(
        ctx.db,
        {
          ...wishOf(input),
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          patient: await staffEntryPatient(ctx.db, input.patient_user_id, input.patient),
          patientUserId: input.patient_user_id ?? null,
          createdByUserId: ctx.user.id,
        },
        ctx.now(),
      ),
    ),
} satisfies TRPCRouterRecord;
