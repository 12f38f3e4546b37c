/** What a failed statement tells about itself, whichever driver raised it. */
export interface PgErrorInfo {
  /** SQLSTATE, e.g. 23P01 for an exclusion violation. */
  code: string;
  constraint: string | undefined;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/**
 * The SQLSTATE and constraint of a PostgreSQL error. Drizzle wraps driver errors, so the
 * original sits on `cause`; postgres.js names the constraint `constraint_name`, PGlite `constraint`.
 */
export function pgErrorInfo(error: unknown): PgErrorInfo | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = fieldOf(current, "code");
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
      const constraint = fieldOf(current, "constraint_name") ?? fieldOf(current, "constraint");
      const message = fieldOf(current, "message");
      if (typeof constraint === "string") return { code, constraint };
      return { code, constraint: typeof message === "string" ? constraintInMessage(message) : undefined };
    }
    current = fieldOf(current, "cause");
  }
  return undefined;
}

/**
 * Citus relays a worker's error as its message only, naming the shard's constraint: the table's
 * constraint with the shard id appended (`appointments_no_double_booking_102008`); check
 * constraints keep their name. No constraint of the schema ends in `_<digits>` (a schema test
 * holds that), so such a suffix is always a shard id.
 */
function constraintInMessage(message: string): string | undefined {
  return /constraint "([^"]+)"/.exec(message)?.[1]?.replace(/_\d+$/, "");
}

const connectionErrorCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/** True when the error means the database could not be reached (as opposed to a bad statement). */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = fieldOf(current, "code");
    if (typeof code === "string") {
      if (connectionErrorCodes.has(code)) return true;
      // SQLSTATE class 08 (connection exception) and 57P0x (server shutting down).
      if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
    }
    current = fieldOf(current, "cause");
  }
  return false;
}
