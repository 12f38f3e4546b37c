// Identities: access tokens (verify, mint) and the users they provision (docs/architecture.md#identity).
export * from "./tokens.ts";
export * from "./users.ts";
export * from "./profile.ts";
