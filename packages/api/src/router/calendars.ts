import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { calendarKinds } from "@clinic/db";
import { assertMayManageProvider, assertMayReadProvider, isClinicAdminOrAbove } from "../modules/access/index.ts";
import {
  busyOutput,
  calendarOutput,
  createCalendar,
  deleteCalendar,
  getCalendar,
  listBusy,
  listCalendars,
  requestSync,
} from "../modules/calendars/index.ts";
import { requireProvider } from "../modules/members/index.ts";
import { invalidTimeRange } from "../errors.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const tags = ["calendars"] as const;
const path = "/v1/clinics/:clinic_id/providers/:user_id/calendars";

/**
 * K1–K4 (§18): a provider's own calendars, read as busy time and (CalDAV) written their
 * appointments. CLINIC_ADMIN, or the provider for their own; STAFF may read.
 */
export const calendarsRouter = {
  create: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path,
        status: 201,
        summary: "Connect a provider's own calendar (ics URL or CalDAV collection); its first sync starts now",
        tags,
        errors: ["UNAVAILABLE"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        user_id: uuid,
        kind: z.enum(calendarKinds),
        url: z.string().trim().min(8).max(2048),
        username: z.string().min(1).max(256).optional(),
        password: z.string().min(1).max(1024).optional(),
        name: z.string().trim().min(1).max(200).optional(),
        write_back: z.boolean().optional(),
      }),
    )
    .output(calendarOutput)
    .mutation(({ ctx, input }) => {
      assertMayManageProvider(ctx, input.user_id);
      return createCalendar(ctx.db, ctx.calendars, ctx.clinic.id, input.user_id, {
        kind: input.kind,
        url: input.url,
        username: input.username,
        password: input.password,
        name: input.name,
        writeBack: input.write_back,
      });
    }),

  list: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path,
        summary: "A provider's calendars with the state of their sync, and whether the caller may change them",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, user_id: uuid }))
    .output(z.object({ calendars: z.array(calendarOutput), may_manage: z.boolean() }))
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.user_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.user_id, "NOT_FOUND");
      return {
        calendars: await listCalendars(ctx.db, ctx.clinic.id, input.user_id),
        may_manage: isClinicAdminOrAbove(ctx) || ctx.user.id === input.user_id,
      };
    }),

  get: clinicProcedure("MEMBER")
    .meta({ rest: { method: "GET", path: `${path}/:id`, summary: "One of a provider's calendars", tags } })
    .input(z.object({ clinic_id: uuid, user_id: uuid, id: uuid }))
    .output(calendarOutput)
    .query(({ ctx, input }) => {
      assertMayReadProvider(ctx, input.user_id);
      return getCalendar(ctx.db, ctx.clinic.id, input.user_id, input.id);
    }),

  delete: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "DELETE",
        path: `${path}/:id`,
        status: 204,
        summary: "Disconnect a calendar: its busy time is gone at once",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, user_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => {
      assertMayManageProvider(ctx, input.user_id);
      return deleteCalendar(ctx.db, ctx.clinic.id, input.user_id, input.id);
    }),

  sync: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path: `${path}/:id/sync`,
        status: 202,
        summary: "Sync a calendar now (a sync under way counts); answers the calendar as it is",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, user_id: uuid, id: uuid }))
    .output(calendarOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.user_id);
      await requestSync(ctx.db, ctx.clinic.id, input.user_id, input.id);
      return getCalendar(ctx.db, ctx.clinic.id, input.user_id, input.id);
    }),

  busy: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/providers/:user_id/busy",
        summary: "A provider's busy time from their own calendars (times only; at most 31 days)",
        tags,
        errors: ["INVALID_TIME_RANGE"],
      },
    })
    .input(z.object({ clinic_id: uuid, user_id: uuid, from: instantInput, to: instantInput }))
    .output(z.object({ busy: z.array(busyOutput) }))
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.user_id);
      if (input.to <= input.from) throw invalidTimeRange("to", "must be after from");
      if (input.to.getTime() - input.from.getTime() > 31 * 86_400_000)
        throw invalidTimeRange("to", "at most 31 days after from");
      await requireProvider(ctx.db, ctx.clinic.id, input.user_id, "NOT_FOUND");
      return { busy: await listBusy(ctx.db, ctx.clinic.id, input.user_id, input.from, input.to) };
    }),
} satisfies TRPCRouterRecord;
