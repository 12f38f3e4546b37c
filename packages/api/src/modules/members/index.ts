// Clinic memberships: members, their roles and the provider flag (docs/architecture.md#members).
export * from "./members.ts";
export * from "./shared.ts";
