import type { TRPCRouterRecord } from "@trpc/server";

export const providersRouter = {} satisfies TRPCRouterRecord;
