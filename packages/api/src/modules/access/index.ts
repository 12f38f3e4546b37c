// Authorization: who may do what in which clinic (docs/architecture.md#access).
export * from "./clinicAccess.ts";
export * from "./providerAccess.ts";
export * from "./roles.ts";
export * from "./providerHourAccess.ts";
export * from "./clinicGate.ts";
