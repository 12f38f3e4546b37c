import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { assertMayManageProvider, isClinicAdminOrAbove } from "../modules/access/index.ts";
import {
  calendarFeedOutput,
  createCalendarFeed,
  createdCalendarFeedOutput,
  deleteCalendarFeed,
  getCalendarFeed,
  listCalendarFeeds,
  renderCalendarFeed,
} from "../modules/calendarFeeds/index.ts";
import { requireProvider } from "../modules/members/index.ts";
import { forbidden } from "../errors.ts";
import { uuid } from "../schemas/wire.ts";
import { clinicProcedure, publicProcedure } from "../trpc.ts";

const tags = ["calendar feeds"] as const;
const feedsPath = "/v1/clinics/:clinic_id/calendar_feeds";

export const calendarFeedsRouter = {
  create: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path: feedsPath,
        status: 201,
        summary: "Subscribe a calendar to the clinic's (or one provider's) appointments; the url is shown once",
        tags,
        errors: ["NOT_A_PROVIDER"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        provider_id: uuid.optional(),
        include_patient_names: z.boolean().default(false),
      }),
    )
    .output(createdCalendarFeedOutput)
    .mutation(async ({ ctx, input }) => {
      // A feed of the whole clinic is CLINIC_ADMIN's; a provider may subscribe to their own.
      assertMayManageProvider(ctx, input.provider_id ?? null);
      if (input.provider_id) await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      return createCalendarFeed(
        ctx.db,
        ctx.clinic.id,
        { providerId: input.provider_id ?? null, includePatientNames: input.include_patient_names },
        ctx.publicUrl,
      );
    }),

  list: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: feedsPath,
        summary: "The clinic's calendar feeds (a provider sees their own)",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid }))
    .output(z.object({ calendar_feeds: z.array(calendarFeedOutput) }))
    .query(async ({ ctx }) => {
      // CLINIC_ADMIN's, or a provider's for their own feeds (contract §10): anyone else is refused.
      const admin = isClinicAdminOrAbove(ctx);
      if (!admin && ctx.membership?.isProvider !== true)
        throw forbidden("calendar feeds are the CLINIC_ADMIN's, or a provider's own");
      return { calendar_feeds: await listCalendarFeeds(ctx.db, ctx.clinic.id, admin ? undefined : ctx.user.id) };
    }),

  remove: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "DELETE",
        path: `${feedsPath}/:id`,
        status: 204,
        summary: "Delete a calendar feed: its url answers 404 from then on",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const feed = await getCalendarFeed(ctx.db, ctx.clinic.id, input.id);
      assertMayManageProvider(ctx, feed.provider_id);
      await deleteCalendarFeed(ctx.db, ctx.clinic.id, input.id);
    }),

  ics: publicProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/calendar/:file",
        contentType: "text/calendar; charset=utf-8",
        summary:
          "The feed as iCalendar (RFC 5545); no authentication: the unguessable token in the url is the credential",
        tags,
      },
    })
    .input(z.object({ file: z.string().regex(/^[A-Za-z0-9_-]{1,200}\.ics$/, "must be <token>.ics") }))
    .output(z.string())
    .query(({ ctx, input }) => renderCalendarFeed(ctx.db, input.file.slice(0, -4), ctx.now())),
} satisfies TRPCRouterRecord;
