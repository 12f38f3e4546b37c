// Sign-in (CONTRACT §22, docs/sign-in.md): OpenID Connect, e-mailed codes, sessions, who is who.
export * from "./emailCodes.ts";
export * from "./loginStates.ts";
export * from "./next.ts";
export * from "./oidc.ts";
export * from "./people.ts";
export { decryptFor, encryptFor, idTokenKeyOf } from "./secrets.ts";
export * from "./sessions.ts";
export { pruneSignInCounters } from "./limits.ts";
