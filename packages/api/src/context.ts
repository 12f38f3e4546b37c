import type { Db } from "@clinic/db";
import type { AuthUser } from "./auth.ts";
import { AvailabilityCache } from "./availability/cache.ts";

/** Everything a procedure may use; built per request by the adapter, or directly by tests. */
export interface Context {
  db: Db;
  /** The authenticated caller, or null. */
  user: AuthUser | null;
  /** Why authentication failed, when a token was presented but refused. */
  authError: string | null;
  requestId: string;
  /** Process-wide availability cache (coherent through database versions). */
  availabilityCache: AvailabilityCache;
  /** The clock; tests may pin it. */
  now: () => Date;
}

export interface ContextInnerOptions {
  db: Db;
  user: AuthUser | null;
  authError?: string | null;
  requestId?: string;
  availabilityCache?: AvailabilityCache;
  now?: () => Date;
}

/** Builds a context from its dependencies; tests call this directly. */
export function createContextInner(options: ContextInnerOptions): Context {
  return {
    db: options.db,
    user: options.user,
    authError: options.authError ?? null,
    requestId: options.requestId ?? crypto.randomUUID(),
    availabilityCache: options.availabilityCache ?? new AvailabilityCache(),
    now: options.now ?? (() => new Date()),
  };
}
