import type { TRPCRouterRecord } from "@trpc/server";

export const workHoursRouter = {} satisfies TRPCRouterRecord;
