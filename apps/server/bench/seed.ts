// The clinic the HTTP benches (`pnpm bench`, `npm run bench:soak`) load, written straight to the
// database, and its removal afterwards.
import { eq } from "drizzle-orm";
import { mintToken } from "@clinic/api";
import { clinicMembers, clinics, type DbHandle, services, users, workHours } from "@clinic/db";
import { benchSecret } from "./server.ts";

export interface BenchClinic {
  clinicId: string;
  /** One 30-minute service per provider, in the providers' order. */
  serviceIds: string[];
  /** A booking agent's bearer token (signed with `benchSecret`). */
  token: string;
}

const weekdays = [1, 2, 3, 4, 5];

/** A clinic with 50 providers working Mon–Fri 09:00–17:00 and one 30-minute service each. */
export async function seedClinic(database: DbHandle, name: string): Promise<BenchClinic> {
  const [clinic] = await database.db.insert(clinics).values({ name, timezone: "Europe/Berlin" }).returning();
  if (!clinic) throw new Error("no clinic");
  const agentId = crypto.randomUUID();
  await database.db.insert(users).values({ id: agentId, email: `agent-${agentId}@bench.test` });
  await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: agentId, fullName: "Agent", email: "agent@bench.test", clinicRole: "BOOKING_AGENT" });
  await database.db.insert(workHours).values(weekdays.map((weekday) => ({ clinicId: clinic.id, scope: "clinic" as const, weekday, opensMin: 540, closesMin: 1020 })));
  const serviceIds: string[] = [];
  for (let p = 0; p < 50; p++) {
    const id = crypto.randomUUID();
    await database.db.insert(users).values({ id, email: `p${String(p)}-${id}@bench.test` });
    await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: id, fullName: `Provider ${String(p).padStart(2, "0")}`, email: `p${String(p)}@bench.test`, isProvider: true, status: "approved" });
    await database.db.insert(workHours).values(weekdays.map((weekday) => ({ clinicId: clinic.id, scope: "provider" as const, providerId: id, weekday, opensMin: 540, closesMin: 1020 })));
    const [service] = await database.db.insert(services).values({ clinicId: clinic.id, name: `Consultation ${String(p)}`, durationMin: 30, providerId: id }).returning();
    if (service) serviceIds.push(service.id);
  }
  const token = await mintToken(benchSecret, { sub: agentId, email: `agent-${agentId}@bench.test` });
  return { clinicId: clinic.id, serviceIds, token };
}

/** Deletes a seeded clinic (its members, hours, services and bookings go with it). */
export async function removeClinic(database: DbHandle, clinicId: string): Promise<void> {
  await database.db.delete(clinics).where(eq(clinics.id, clinicId));
}
