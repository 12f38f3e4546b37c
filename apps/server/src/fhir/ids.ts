// FHIR resource ids that name their clinic (docs/fhir.md#which-clinic). A FHIR id is at most 64
// characters of [A-Za-z0-9-.], so two UUIDs are written as 64 hex digits, and a Slot (clinic,
// provider, service, start) as 48 bytes in a base64 alphabet of those characters.
import { z } from "zod";
import { invalid, quoted } from "./input.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const hexPattern = /^[0-9a-f]{32}$/;
/** The procedures' own check (RFC 9562 versions and variant): an id it refuses is none of ours. */
const procedureUuid = z.uuid();

const hexOf = (uuid: string): string => uuid.replaceAll("-", "");
const uuidOf = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** A UUID in canonical lower-case form that the procedures accept as an id. */
export const isUuid = (value: string): boolean => uuidPattern.test(value) && procedureUuid.safeParse(value).success;

/** An id of a resource of one clinic: the clinic's and the resource's UUIDs as 64 hex digits. */
export function pairId(clinicId: string, localId: string): string {
  return hexOf(clinicId) + hexOf(localId);
}

/** The clinic and local UUIDs of a pair id, or undefined when it is not one. */
export function parsePairId(id: string): { clinicId: string; localId: string } | undefined {
  const clinic = id.slice(0, 32);
  const local = id.slice(32);
  if (id.length !== 64 || !hexPattern.test(clinic) || !hexPattern.test(local)) return undefined;
  const pair = { clinicId: uuidOf(clinic), localId: uuidOf(local) };
  return isUuid(pair.clinicId) && isUuid(pair.localId) ? pair : undefined;
}

function encode(bytes: Buffer): string {
  return bytes.toString("base64url").replaceAll("_", ".");
}

function decode(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9\-.]*$/.test(text)) return undefined;
  return Buffer.from(text.replaceAll(".", "_"), "base64url");
}

export interface SlotKey {
  clinicId: string;
  providerId: string;
  /** The service's first 12 bytes (24 hex digits): the whole id would not fit in 64 characters. */
  servicePrefix: string;
  start: Date;
}

/**
 * A Slot's id: clinic (16 bytes), provider (16), the service's first 12 bytes and the start in
 * minutes since the epoch (4): 48 bytes, 64 characters. The service is found again among the
 * clinic's services by its prefix (96 random bits; an ambiguous prefix reads as not found).
 */
export function slotId(clinicId: string, providerId: string, serviceId: string, start: Date): string {
  const minutes = Buffer.alloc(4);
  minutes.writeUInt32BE(Math.floor(start.getTime() / 60_000));
  return encode(
    Buffer.concat([
      Buffer.from(hexOf(clinicId), "hex"),
      Buffer.from(hexOf(providerId), "hex"),
      Buffer.from(hexOf(serviceId).slice(0, 24), "hex"),
      minutes,
    ]),
  );
}

export function parseSlotId(id: string): SlotKey | undefined {
  if (id.length !== 64) return undefined;
  const bytes = decode(id);
  if (bytes?.length !== 48 || encode(bytes) !== id) return undefined;
  const key = {
    clinicId: uuidOf(bytes.subarray(0, 16).toString("hex")),
    providerId: uuidOf(bytes.subarray(16, 32).toString("hex")),
    servicePrefix: bytes.subarray(32, 44).toString("hex"),
    start: new Date(bytes.readUInt32BE(44) * 60_000),
  };
  return isUuid(key.clinicId) && isUuid(key.providerId) ? key : undefined;
}

/**
 * The id in a reference `Type/id`, `[base]/Type/id[/_history/version]` or a bare id, refusing
 * any other type: 400.
 */
export function referenceId(value: string, types: readonly string[], parameter: string): string {
  const path = value.replace(/\/_history\/[^/]*$/, "");
  const slash = path.lastIndexOf("/");
  const type = slash < 0 ? undefined : path.slice(0, slash).split("/").pop();
  const id = slash < 0 ? path : path.slice(slash + 1);
  if ((type !== undefined && !types.includes(type)) || !/^[A-Za-z0-9\-.]{1,64}$/.test(id)) {
    throw invalid(parameter, `must be a reference to ${types.join(" or ")} (got ${quoted(value)})`);
  }
  return id;
}
