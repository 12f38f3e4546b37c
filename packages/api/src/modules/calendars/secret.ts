import { createHash } from "node:crypto";
import { z } from "zod";
import { seal, unseal } from "../../domain/sealed.ts";

/**
 * A calendar's secret — its full URL (an ICS subscription URL is often itself the credential) and
 * the CalDAV user and password — encrypted at rest with AES-256-GCM under a key derived from
 * CALENDAR_KEY (docs/calendars.md#secrets), sealed by domain/sealed.ts: the calendar's id is bound
 * to it as additional data, so a secret copied onto another calendar's row does not decrypt.
 */
export interface CalendarSecret {
  url: string;
  username: string | null;
  password: string | null;
}

const secretSchema = z.object({ url: z.string(), username: z.string().nullable(), password: z.string().nullable() });

/**
 * The development key, used when CALENDAR_KEY is unset outside production: a copy of the
 * database alone then reveals the secrets, which is why a production start stores none without
 * the variable.
 */
const developmentKey = "clinic-scheduling development calendar key (not for production)";

/** The key the secrets are encrypted with: a production start has none without CALENDAR_KEY. */
export function calendarKeyOf(settings: { key: string | undefined; production: boolean }): Buffer | null {
  if (!settings.key && settings.production) return null;
  return createHash("sha256")
    .update(settings.key ?? developmentKey)
    .digest();
}

export function encryptSecret(key: Buffer, calendarId: string, secret: CalendarSecret): string {
  return seal(key, calendarId, JSON.stringify(secret));
}

/** Decrypts a stored secret; throws (without the secret in the message) when the key or the text is wrong. */
export function decryptSecret(key: Buffer, calendarId: string, stored: string): CalendarSecret {
  const [version, iv, tag, body] = stored.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined)
    throw new Error("the calendar's stored secret is unreadable");
  const text = unseal(key, calendarId, stored);
  const secret = text === null ? undefined : secretSchema.safeParse(safeJson(text));
  if (!secret?.success)
    throw new Error("the calendar's secret does not decrypt with CALENDAR_KEY (was the key changed?)");
  return secret.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The URL as the API shows it: without user, password, query string and fragment. */
export function shownUrlOf(url: URL): string {
  const shown = new URL(url.href);
  shown.username = "";
  shown.password = "";
  shown.search = "";
  shown.hash = "";
  return shown.href;
}
