// Providers of several clinics (CONTRACT §14, docs/shared-providers.md): which users are, and their
// appointments' time in provider_busy, where the database keeps one person out of two clinics at once.
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, clinicMembers, pgErrorInfo, providerBusy, sharedProviders } from "@clinic/db";
import { DomainError } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";

/**
 * After a change of the user's provider memberships: a provider of two or more clinics is shared
 * (their clinics in shared_providers, their occupying appointments of every clinic copied into
 * provider_busy), one of fewer is not (both removed). Every clinic of theirs sees the change in its
 * cached availability. 409 CONFLICT when their appointments in two clinics already overlap.
 */
export async function refreshSharedProvider(tx: Db, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`shared-provider:${userId}`}, 0))`);
  const clinicIds = (
    await tx
      .select({ clinicId: clinicMembers.clinicId })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.userId, userId), eq(clinicMembers.isProvider, true)))
      .orderBy(asc(clinicMembers.clinicId))
  ).map((r) => r.clinicId);
  const [before] = await tx
    .select({ clinicIds: sharedProviders.clinicIds })
    .from(sharedProviders)
    .where(eq(sharedProviders.userId, userId));
  if (clinicIds.length < 2) {
    // (Also without a row here: a merged-away user's row is gone with the user, not its times.)
    await tx.delete(providerBusy).where(eq(providerBusy.userId, userId));
    if (!before) return;
    await tx.delete(sharedProviders).where(eq(sharedProviders.userId, userId));
  } else {
    // (Delete and insert under the lock above: Citus refuses now() in an upsert of a reference table.)
    if (before) await tx.delete(sharedProviders).where(eq(sharedProviders.userId, userId));
    await tx.insert(sharedProviders).values({ userId, clinicIds });
    // Made anew (ON CONFLICT would also skip exclusion violations, the overlaps this must find).
    await tx.delete(providerBusy).where(eq(providerBusy.userId, userId));
    try {
      await tx.execute(sql`
        insert into provider_busy (user_id, clinic_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
        select a.provider_id, a.clinic_id, a.id, a.occupied_start, a.occupied_end, a.session_key, a.held_until
        from appointments a
        where a.provider_id = ${userId}::uuid and a.clinic_id = any (${`{${clinicIds.join(",")}}`}::uuid[])
          and a.status <> 'canceled' and (a.held_until is null or a.held_until > now()) and a.occupied_end > now()`);
    } catch (error) {
      // (No savepoint to return to: the transaction is lost either way.)
      if (pgErrorInfo(error)?.code !== "23P01") throw error;
      throw new DomainError(
        "CONFLICT",
        "the provider has appointments at overlapping times in two of their clinics; move or cancel one of each pair first",
        { cause: error },
      );
    }
  }
  for (const clinicId of [...new Set([...clinicIds, ...(before?.clinicIds ?? [])])].sort())
    await invalidateAvailability(tx, clinicId, [userId]);
}
