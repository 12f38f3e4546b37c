// The audit trail of service changes, written in the transaction of the change (docs/providers-services.md#audit-trail).
export * from "./auditLog.ts";
