import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { addMember, listMembers, memberOutput, updateMember } from "../modules/members/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { phoneE164, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const fullName = z.string().trim().min(1).max(200);
const clinicRole = z.string().trim().min(1).max(64);
const notes = z.string().max(5000).nullable();
/** A provider's daily limit (CONTRACT §8 v1.4): 1–100 appointments per clinic-local date, null = no limit. */
const maxDailyAppointments = z.number().int().min(1).max(100).nullable();

export const membersRouter = {
  add: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/members",
        status: 201,
        summary: "Add a member (links the user with that e-mail or user_id, else creates the user)",
        tags: ["members"],
        errors: ["ALREADY_MEMBER"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        email: z.email().max(320),
        full_name: fullName,
        user_id: uuid.optional(),
        phone_e164: phoneE164.optional(),
        clinic_role: clinicRole.default("STAFF"),
        is_provider: z.boolean().default(false),
        notes: notes.optional(),
      }),
    )
    .output(memberOutput)
    .mutation(({ ctx, input }) => {
      const { clinic_id: _clinicId, ...member } = input;
      return addMember(ctx.db, ctx.clinic.id, member);
    }),

  list: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/members",
        summary: "List the members of a clinic by full_name",
        tags: ["members"],
      },
    })
    .input(z.object({ clinic_id: uuid, ...pageInput }))
    .output(z.object({ members: z.array(memberOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) => listMembers(ctx.db, ctx.clinic.id, input)),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/clinics/:clinic_id/members/:user_id",
        summary: "Update a member (setting is_provider true on a non-provider makes them pending)",
        tags: ["members"],
        errors: ["PROVIDER_HAS_SERVICES"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        user_id: uuid,
        full_name: fullName.optional(),
        phone_e164: phoneE164.nullable().optional(),
        clinic_role: clinicRole.optional(),
        is_provider: z.boolean().optional(),
        notes: notes.optional(),
        max_daily_appointments: maxDailyAppointments.optional(),
      }),
    )
    .output(memberOutput)
    .mutation(({ ctx, input }) => {
      const { clinic_id: _clinicId, user_id: userId, ...patch } = input;
      return updateMember(ctx.db, ctx.clinic.id, userId, patch);
    }),
} satisfies TRPCRouterRecord;
