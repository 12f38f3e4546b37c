import type { Db } from "@clinic/db";
import type { AuthUser } from "./modules/identity/index.ts";
import { AvailabilityCache } from "./modules/availability/index.ts";
import { calendarKeyOf } from "./modules/calendars/index.ts";
import { clientKeyOf } from "./modules/ratelimit/index.ts";

/** Everything a procedure may use; built per request by the adapter, or directly by tests. */
export interface Context {
  db: Db;
  /** The authenticated caller, or null. */
  user: AuthUser | null;
  /** Why authentication failed, when a token was presented but refused. */
  authError: string | null;
  requestId: string;
  /** The client's address (request.ip: the peer, or behind TRUST_PROXY the forwarded client, §11). */
  clientAddress: string;
  /**
   * The client's address as it is stored and counted (guest writes and guest holds are limited per
   * address, §15): its keyed hash, never the address itself; computed on first use.
   */
  clientKey: () => string;
  /** GUEST_ADDRESS_KEY, which also keys an erased patient's pseudonym (§21; unset: a fixed key). */
  pseudonymKey: string | undefined;
  /** Process-wide availability cache (coherent through database versions). */
  availabilityCache: AvailabilityCache;
  /** The clock; tests may pin it. */
  now: () => Date;
  /** What one request may cost. */
  limits: ApiLimits;
  /** The service's public base URL (links it hands out, e.g. calendar feeds), without a trailing slash. */
  publicUrl: string;
  /** Outbound rules of webhooks (WEBHOOK_ALLOW_PRIVATE). */
  webhooks: { allowPrivate: boolean };
  /**
   * Providers' own calendars (docs/calendars.md): the key their secrets are encrypted with (null on
   * a production start without CALENDAR_KEY: none is stored) and the outbound rule of §10.
   */
  calendars: { key: Buffer | null; allowPrivate: boolean };
  /** Where outcomes worth counting go (the server's /metrics); does nothing by default. */
  observer: ApiObserver;
}

/** Outcomes the API reports as they happen (docs/operations.md#metrics). */
export interface ApiObserver {
  /** A booking write ended (staff book B1 or reschedule B5; a patient books O4, cancels U3 or moves U4): `outcome` is "ok" or the error's contract code. */
  bookingWrite(procedure: string, outcome: string): void;
}

const quietObserver: ApiObserver = { bookingWrite: () => undefined };

/** Bounds on what one request may cost (docs/availability.md#limits, docs/patients.md#rate-limit). */
export interface ApiLimits {
  /** The most slots one availability answer may hold. */
  maxSlotsPerAnswer: number;
  /** Booking writes (book, reschedule, patient cancel) one user may make per minute, across processes. */
  bookingWritesPerMinute: number;
  /** Guest writes (O4 without a token) one client address may make per minute, across processes. */
  guestWritesPerMinute: number;
}

export const defaultApiLimits: ApiLimits = {
  maxSlotsPerAnswer: 10_000,
  bookingWritesPerMinute: 30,
  guestWritesPerMinute: 10,
};

export interface ContextInnerOptions {
  db: Db;
  user: AuthUser | null;
  authError?: string | null;
  requestId?: string;
  clientAddress?: string;
  /** GUEST_ADDRESS_KEY: the key of `clientKey`'s hash (unset: a fixed one). */
  guestAddressKey?: string | undefined;
  availabilityCache?: AvailabilityCache;
  now?: () => Date;
  limits?: ApiLimits;
  publicUrl?: string;
  webhooks?: { allowPrivate: boolean };
  /** Default: the development key, and the webhooks' outbound rule. */
  calendars?: { key: Buffer | null; allowPrivate: boolean };
  observer?: ApiObserver;
}

/** Builds a context from its dependencies; tests call this directly. */
export function createContextInner(options: ContextInnerOptions): Context {
  const clientAddress = options.clientAddress ?? "127.0.0.1";
  let clientKey: string | undefined;
  return {
    db: options.db,
    user: options.user,
    authError: options.authError ?? null,
    requestId: options.requestId ?? crypto.randomUUID(),
    clientAddress,
    clientKey: () => (clientKey ??= clientKeyOf(clientAddress, options.guestAddressKey)),
    pseudonymKey: options.guestAddressKey,
    availabilityCache: options.availabilityCache ?? new AvailabilityCache(),
    now: options.now ?? (() => new Date()),
    limits: options.limits ?? defaultApiLimits,
    publicUrl: options.publicUrl ?? "http://127.0.0.1:3000",
    webhooks: options.webhooks ?? { allowPrivate: false },
    calendars: options.calendars ?? {
      key: calendarKeyOf({ key: undefined, production: false }),
      allowPrivate: options.webhooks?.allowPrivate ?? false,
    },
    observer: options.observer ?? quietObserver,
  };
}
