import type { TRPCRouterRecord } from "@trpc/server";

export const availabilityRouter = {} satisfies TRPCRouterRecord;
