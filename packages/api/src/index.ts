// The API package's public surface: the router, context, errors, and what adapters need.
export * from "./context.ts";
export * from "./errors.ts";
export { JobWorkers, jobQueueState, queueNames } from "./modules/jobs/index.ts";
export { type WorkerSettings, startWorkers } from "./workers.ts";
export type { RetentionRun } from "./modules/patientData/index.ts";
export {
  AvailabilityCache,
  type FastAvailabilityAnswer,
  type FastAvailabilityRequest,
  fastAvailability,
  etagOf,
  matchesEtag,
} from "./modules/availability/index.ts";
export { type MailTransport, type OutgoingMail, smtpTransport } from "./modules/messages/index.ts";
export { deliveryCountsByStatus, oldestPendingDeliveryAgeS, webhookFeedEnd } from "./modules/webhooks/index.ts";
export {
  type AuthUser,
  type JwtSettings,
  type TokenClaims,
  type TokenVerifier,
  UserProvisioner,
  createTokenVerifier,
  mintToken,
} from "./modules/identity/index.ts";
export {
  OidcClient,
  type OidcSettings,
  type SessionLimits,
  type SessionView,
  SignInFailed,
  type VerifiedSignIn,
  consumeLoginState,
  createSession,
  decryptFor,
  emailCodeRules,
  encryptFor,
  endSession,
  endSessionsOfUser,
  idTokenKeyOf,
  safeNext,
  saveLoginState,
  sessionOf,
  startEmailCode,
  userForEmail,
  userForIdentity,
  verifyEmailCode,
} from "./modules/signIn/index.ts";
export { refreshSharedProvider } from "./modules/members/index.ts";
export { calendarKeyOf } from "./modules/calendars/index.ts";
export { appRouter, type AppRouter } from "./router/index.ts";
export { createCallerFactory, type Meta, type RestRoute } from "./trpc.ts";
