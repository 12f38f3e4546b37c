import { router } from "../trpc.ts";
import { appointmentsRouter } from "./appointments.ts";
import { auditRouter } from "./audit.ts";
import { availabilityRouter } from "./availability.ts";
import { clinicsRouter } from "./clinics.ts";
import { calendarFeedsRouter } from "./calendarFeeds.ts";
import { calendarsRouter } from "./calendars.ts";
import { closuresRouter } from "./closures.ts";
import { dateOverridesRouter } from "./dateOverrides.ts";
import { eventsRouter } from "./events.ts";
import { meRouter } from "./me.ts";
import { manageRouter } from "./manage.ts";
import { membersRouter } from "./members.ts";
import { messagesRouter } from "./messages.ts";
import { nextFreeRouter } from "./nextFree.ts";
import { onlineBookingRouter } from "./onlineBooking.ts";
import { patientDataRouter } from "./patientData.ts";
import { providersRouter } from "./providers.ts";
import { reportsRouter } from "./reports.ts";
import { resourcesRouter } from "./resources.ts";
import { seriesRouter } from "./series.ts";
import { servicesRouter } from "./services.ts";
import { waitlistRouter } from "./waitlist.ts";
import { webhooksRouter } from "./webhooks.ts";
import { workHoursRouter } from "./workHours.ts";

/** The whole API: every domain's procedures; the REST table and OpenAPI are derived from it. */
export const appRouter = router({
  clinics: clinicsRouter,
  members: membersRouter,
  providers: providersRouter,
  services: servicesRouter,
  audit: auditRouter,
  workHours: workHoursRouter,
  closures: closuresRouter,
  dateOverrides: dateOverridesRouter,
  availability: availabilityRouter,
  appointments: appointmentsRouter,
  series: seriesRouter,
  onlineBooking: onlineBookingRouter,
  me: meRouter,
  events: eventsRouter,
  calendarFeeds: calendarFeedsRouter,
  calendars: calendarsRouter,
  patientData: patientDataRouter,
  webhooks: webhooksRouter,
  waitlist: waitlistRouter,
  nextFree: nextFreeRouter,
  messages: messagesRouter,
  manage: manageRouter,
  resources: resourcesRouter,
  reports: reportsRouter,
});

export type AppRouter = typeof appRouter;
