import { router } from "../trpc.ts";
import { appointmentsRouter } from "./appointments.ts";
import { auditRouter } from "./audit.ts";
import { availabilityRouter } from "./availability.ts";
import { clinicsRouter } from "./clinics.ts";
import { closuresRouter } from "./closures.ts";
import { membersRouter } from "./members.ts";
import { providersRouter } from "./providers.ts";
import { servicesRouter } from "./services.ts";
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
  availability: availabilityRouter,
  appointments: appointmentsRouter,
});

export type AppRouter = typeof appRouter;
