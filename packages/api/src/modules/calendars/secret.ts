import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * A calendar's secret — its full URL (an ICS subscription URL is often itself the credential) and
 * the CalDAV user and password — encrypted at rest with AES-256-GCM under a key derived from
 * CALENDAR_KEY (docs/calendars.md#secrets). The stored text is `v1.<iv>.<tag>.<ciphertext>`
 * (base64url); the calendar's id is bound to it as additional data, so a secret copied onto another
 * calendar's row does not decrypt.
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
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(calendarId));
  const body = Buffer.concat([cipher.update(JSON.stringify(secret), "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(
    ".",
  );
}

/** Decrypts a stored secret; throws (without the secret in the message) when the key or the text is wrong. */
export function decryptSecret(key: Buffer, calendarId: string, stored: string): CalendarSecret {
  const [version, iv, tag, body] = stored.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined)
    throw new Error("the calendar's stored secret is unreadable");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(calendarId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    const text = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    return secretSchema.parse(JSON.parse(text));
  } catch {
    throw new Error("the calendar's secret does not decrypt with CALENDAR_KEY (was the key changed?)");
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
