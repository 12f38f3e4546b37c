// A version never names two states of its scope (drizzle/0017_versions_never_repeat.sql): a
// process keeps availability answers and a service's candidates and hours under versions, so a
// change made after a restore or a failover that lost commits must not be numbered as one of the
// lost changes was. Losing them is simulated here by taking their row back to what it was.
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { availabilityVersions } from "@clinic/db";
import { invalidateAvailability, readVersions } from "../src/modules/availability/index.ts";
import { addService, bookableClinic, callerFor, createClinic, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
/** What a failover or a restore takes at the least: the clock moves on (by milliseconds, here). */
const failover = () => new Promise((resolve) => setTimeout(resolve, 5));

async function version(clinicId: string, scopeId: string): Promise<number> {
  return (await readVersions(t.db, clinicId)).get(scopeId) ?? 0;
}

describe("availability versions", () => {
  it("number a change made after lost ones above every version handed out before", async () => {
    const clinicId = await createClinic(t.db);
    // A scope whose row the lost changes created: the row is gone again.
    await invalidateAvailability(t.db, clinicId, [clinicId]);
    const lost = await version(clinicId, clinicId);
    await t.db.delete(availabilityVersions).where(eq(availabilityVersions.clinicId, clinicId));
    await failover();
    await invalidateAvailability(t.db, clinicId, [clinicId]);
    const first = await version(clinicId, clinicId);
    expect(first).toBeGreaterThan(lost);
    // A row that survives, but with the number it had before the lost bumps.
    await invalidateAvailability(t.db, clinicId, [clinicId]);
    const highest = await version(clinicId, clinicId);
    await t.db
      .update(availabilityVersions)
      .set({ version: first, scheduleVersion: sql`${availabilityVersions.scheduleVersion} - 1` })
      .where(and(eq(availabilityVersions.clinicId, clinicId), eq(availabilityVersions.scopeId, clinicId)));
    await failover();
    await invalidateAvailability(t.db, clinicId, [clinicId]);
    expect(await version(clinicId, clinicId)).toBeGreaterThan(highest);
  });

  it("do so on the booking path too (its database function bumps the provider's)", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const book = (start: string) =>
      caller.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: new Date(start),
        patient: { name: "Pat" },
      });
    await book("2027-03-15T10:00:00Z");
    const lost = await version(c.clinicId, c.provider.id);
    await t.db
      .delete(availabilityVersions)
      .where(and(eq(availabilityVersions.clinicId, c.clinicId), eq(availabilityVersions.scopeId, c.provider.id)));
    await failover();
    await book("2027-03-15T11:00:00Z");
    expect(await version(c.clinicId, c.provider.id)).toBeGreaterThan(lost);
  });
});
