import type { TRPCRouterRecord } from "@trpc/server";

export const closuresRouter = {} satisfies TRPCRouterRecord;
