import { router } from "../trpc.ts";
import { clinicsRouter } from "./clinics.ts";
import { membersRouter } from "./members.ts";

/** The whole API: every domain's procedures; the REST table and OpenAPI are derived from it. */
export const appRouter = router({
  clinics: clinicsRouter,
  members: membersRouter,
});

export type AppRouter = typeof appRouter;
