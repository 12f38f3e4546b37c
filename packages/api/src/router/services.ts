import type { TRPCRouterRecord } from "@trpc/server";

export const servicesRouter = {} satisfies TRPCRouterRecord;
