import { createHmac } from "node:crypto";

/**
 * The key of a deployment that sets no GUEST_ADDRESS_KEY: public, so the stored value is then only
 * a pseudonym (docs/manage-links.md#guest-holds).
 */
const unkeyed = "clinic-scheduling:guest-address";

/**
 * A client address as the database stores and counts it (guest writes, guest holds): its keyed hash
 * (HMAC-SHA256 under GUEST_ADDRESS_KEY, base64url), never the address itself. One address gives
 * one value in every clinic and process of a deployment.
 */
export function clientKeyOf(address: string, key: string | undefined): string {
  return createHmac("sha256", key ?? unkeyed)
    .update(address)
    .digest("base64url");
}
