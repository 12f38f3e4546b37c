/** What a failed statement tells about itself, whichever driver raised it. */
export interface PgErrorInfo {
  /** SQLSTATE, e.g. 23P01 for an exclusion violation. */
  code: string;
  constraint: string | undefined;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
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
      return { code, constraint: typeof constraint === "string" ? constraint : undefined };
    }
    current = fieldOf(current, "cause");
  }
  return undefined;
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
