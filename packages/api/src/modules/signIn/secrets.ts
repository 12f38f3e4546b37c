import { createHash, createHmac, randomBytes, randomInt } from "node:crypto";
import { seal, unseal } from "../../domain/sealed.ts";

/** An opaque random value (256 bits, base64url): session ids, states, nonces, browser bindings. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The stored form of a secret the browser holds (sha256, base64url): a copy of the table signs nobody in. */
export function hashOf(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

/** A six-digit code, uniformly drawn. */
export function randomCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

/** The fixed key of the address hash when no GUEST_ADDRESS_KEY is set (then only a pseudonym). */
const unkeyedEmail = "clinic-scheduling:sign-in-email";

/**
 * An e-mail address as sign-in stores and counts it: the keyed hash (HMAC-SHA256 under
 * GUEST_ADDRESS_KEY) of its lower-cased form, never the address itself.
 */
export function emailKeyOf(email: string, key: string | undefined): string {
  return createHmac("sha256", key ?? unkeyedEmail)
    .update(email.trim().toLowerCase())
    .digest("base64url");
}

/** The stored form of an e-mailed code: bound to its address, so one hash never fits two addresses. */
export function codeHashOf(emailKey: string, code: string): string {
  return hashOf(`${emailKey}:${code}`);
}

/**
 * The key the issuer's ID tokens are encrypted with at rest: derived from OIDC_CLIENT_SECRET, which
 * the database never holds, the way CALENDAR_KEY keys calendars' secrets (docs/calendars.md#secrets).
 */
export function idTokenKeyOf(clientSecret: string): Buffer {
  return createHash("sha256").update(`clinic-scheduling:id-token:${clientSecret}`).digest();
}

/**
 * An ID token sealed for its session (domain/sealed.ts): the session's id hash is the additional
 * data, so a value copied onto another session does not open.
 */
export function encryptFor(key: Buffer, boundTo: string, plain: string): string {
  return seal(key, boundTo, plain);
}

/** The plain text, or null when the key or the stored text is wrong (a changed client secret). */
export function decryptFor(key: Buffer, boundTo: string, stored: string): string | null {
  return unseal(key, boundTo, stored);
}
