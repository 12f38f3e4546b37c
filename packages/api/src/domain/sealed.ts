// A secret sealed for storage (docs/calendars.md#secrets, docs/sign-in.md): AES-256-GCM with a
// fresh 96-bit IV, stored as `v1.<iv>.<tag>.<ciphertext>` (base64url), and bound as additional data
// to the row it belongs to, so that a value copied onto another row does not open. One home for
// calendars' secrets and sessions' ID tokens.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** `plain` sealed under `key` (32 bytes) and bound to `boundTo` (the owning row's id or hash). */
export function seal(key: Buffer, boundTo: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(
    ".",
  );
}

/**
 * The plain text of a sealed value, or null when it does not open: another key, another row, a
 * changed or unreadable text. Never says which, and never echoes the value.
 */
export function unseal(key: Buffer, boundTo: string, stored: string): string | null {
  const [version, iv, tag, body] = stored.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
