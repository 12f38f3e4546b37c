import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type Db, idempotencyKeys } from "@clinic/db";
import { DomainError } from "../../errors.ts";

/** A write made with an `Idempotency-Key`: per clinic and caller, with the request it was sent with. */
export interface IdempotentRequest {
  clinicId: string;
  userId: string;
  key: string | undefined;
  /** What the request asks (the operation and its fields): the same key with another request is 409. */
  request: readonly unknown[];
}

const hashOf = (request: readonly unknown[]) => createHash("sha256").update(JSON.stringify(request)).digest("hex");

/**
 * Runs `write` (which answers the appointment it created or changed) at most once per key, in the
 * caller's transaction. The key is claimed first: a concurrent request with the same key waits
 * on it until this transaction ends, then replays the stored outcome instead of writing again.
 * Without a key, `write` simply runs.
 */
export async function onceForKey(tx: Db, idempotent: IdempotentRequest, write: () => Promise<string>): Promise<{ appointmentId: string; replayed: boolean }> {
  const { clinicId, userId, key } = idempotent;
  if (key === undefined) return { appointmentId: await write(), replayed: false };
  const hash = hashOf(idempotent.request);
  const thisKey = and(eq(idempotencyKeys.clinicId, clinicId), eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));
  const claimed = await tx
    .insert(idempotencyKeys)
    .values({ clinicId, userId, key, requestHash: hash, statusCode: 0, response: {} })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (claimed.length === 0) {
    const [stored] = await tx.select().from(idempotencyKeys).where(thisKey);
    if (!stored) throw new DomainError("CONFLICT", "the idempotency key is in use by a concurrent request; retry");
    if (stored.requestHash !== hash) throw new DomainError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request");
    const response = stored.response;
    const appointmentId = typeof response === "object" && response !== null && "appointment_id" in response ? response.appointment_id : undefined;
    if (typeof appointmentId !== "string") throw new DomainError("CONFLICT", "the original request with this key did not complete; retry");
    return { appointmentId, replayed: true };
  }
  const appointmentId = await write();
  await tx.update(idempotencyKeys).set({ statusCode: 200, response: { appointment_id: appointmentId } }).where(thisKey);
  return { appointmentId, replayed: false };
}
