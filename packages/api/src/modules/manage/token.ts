import { timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type Db, appointments } from "@clinic/db";
import { notFound } from "../../errors.ts";

/**
 * A manage link's token (§15, docs/manage-links.md): the clinic's id, the appointment's id and the
 * appointment's secret `manage_key`, 48 bytes in base64url (64 characters). The key is random
 * (122 bits), so a token cannot be guessed; the clinic in it keeps its check on the clinic's shard,
 * one read by primary key. It is not stored anywhere else, and never logged (the server redacts
 * `/v1/manage/…` and `/manage/…` paths).
 */
export function manageToken(clinicId: string, appointmentId: string, manageKey: string): string {
  return Buffer.concat([uuidBytes(clinicId), uuidBytes(appointmentId), uuidBytes(manageKey)]).toString("base64url");
}

/** The parts of a well-formed token, or undefined for anything else. */
export function parseManageToken(
  token: string,
): { clinicId: string; appointmentId: string; manageKey: Buffer } | undefined {
  if (!/^[A-Za-z0-9_-]{64}$/.test(token)) return undefined;
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length !== 48) return undefined;
  return {
    clinicId: uuidOf(bytes.subarray(0, 16)),
    appointmentId: uuidOf(bytes.subarray(16, 32)),
    manageKey: bytes.subarray(32, 48),
  };
}

/** The link a message carries: `{publicUrl}/manage/{token}`. */
export function manageUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/manage/${token}`;
}

/** What a live token names: the appointment's clinic and id. */
export interface ManagedAppointment {
  clinicId: string;
  appointmentId: string;
}

/**
 * The appointment a token is for, when the token is live: well formed, its key the appointment's,
 * the appointment not canceled and not yet ended at `now`. Anything else is 404 NOT_FOUND, alike
 * (a dead token says no more than a made-up one).
 */
export async function resolveManageToken(db: Db, token: string, now: Date): Promise<ManagedAppointment> {
  const parts = parseManageToken(token);
  const dead = notFound("manage link");
  if (!parts) throw dead;
  const [row] = await db
    .select({ key: appointments.manageKey, status: appointments.status, endsAt: appointments.endsAt })
    .from(appointments)
    .where(and(eq(appointments.clinicId, parts.clinicId), eq(appointments.id, parts.appointmentId)));
  if (!row || !timingSafeEqual(uuidBytes(row.key), parts.manageKey)) throw dead;
  if (row.status === "canceled" || row.endsAt.getTime() <= now.getTime()) throw dead;
  return { clinicId: parts.clinicId, appointmentId: parts.appointmentId };
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replaceAll("-", ""), "hex");
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
