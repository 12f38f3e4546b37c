import type { TRPCRouterRecord } from "@trpc/server";

export const auditRouter = {} satisfies TRPCRouterRecord;
