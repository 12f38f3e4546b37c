// For random schedules stored in the database, the explanation (V2) says a provider is bookable
// exactly when availability (V1) lists that start for that provider: both go through the API.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addClosure,
  addHours,
  addProvider,
  addService,
  bookableClinic,
  callerFor,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const monday = "2027-03-15";
const DAY = Date.parse(`${monday}T00:00:00Z`);
const MINUTE = 60_000;
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

describe("V2 agrees with V1", () => {
  it("for random hours, overrides, closures, bookings and rules", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          // A split shift: [opens, opens + first) and, after a gap, a second period up to midnight at most.
          hours: fc.tuple(
            fc.integer({ min: 0, max: 900 }),
            fc.integer({ min: 60, max: 300 }),
            fc.integer({ min: 0, max: 120 }),
            fc.integer({ min: 0, max: 300 }),
          ),
          override: fc.option(fc.tuple(fc.integer({ min: 0, max: 1200 }), fc.integer({ min: 30, max: 300 })), {
            nil: undefined,
          }),
          duration: fc.integer({ min: 10, max: 90 }),
          step: fc.option(fc.integer({ min: 5, max: 60 }), { nil: null }),
          buffers: fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 })),
          closure: fc.option(fc.tuple(fc.integer({ min: 0, max: 1400 }), fc.integer({ min: 10, max: 240 })), {
            nil: undefined,
          }),
          bookings: fc.array(fc.integer({ min: 0, max: 1439 }), { maxLength: 4 }),
          starts: fc.array(fc.integer({ min: 0, max: 1439 }), { minLength: 5, maxLength: 20 }),
        }),
        async (r) => {
          const c = await bookableClinic(t.db);
          const second = await addProvider(t.db, c.clinicId, "Second Provider");
          const [opens, first, gap, next] = r.hours;
          await addHours(t.db, c.clinicId, second.id, [1], hhmm(opens), hhmm(opens + first));
          if (next > 0)
            await addHours(
              t.db,
              c.clinicId,
              second.id,
              [1],
              hhmm(opens + first + gap),
              hhmm(Math.min(1440, opens + first + gap + next)),
            );
          const service = await addService(t.db, c.clinicId, { durationMin: r.duration });
          await c.asAdmin.services.update({
            clinic_id: c.clinicId,
            id: service,
            slot_step_min: r.step,
            buffer_before_min: r.buffers[0],
            buffer_after_min: r.buffers[1],
          });
          if (r.override) {
            const [opens, len] = r.override;
            await c.asAdmin.dateOverrides.putProvider({
              clinic_id: c.clinicId,
              provider_id: c.provider.id,
              date: monday,
              periods: [{ opens_at: hhmm(opens), closes_at: hhmm(Math.min(1440, opens + len)) }],
            });
          }
          if (r.closure)
            await addClosure(
              t.db,
              c.clinicId,
              second.id,
              new Date(DAY + r.closure[0] * MINUTE).toISOString(),
              new Date(DAY + (r.closure[0] + r.closure[1]) * MINUTE).toISOString(),
            );
          const staff = callerFor(t.db, c.staff, { now: () => new Date("2027-03-01T00:00:00Z") });
          for (const minute of r.bookings) {
            await staff.appointments
              .book({
                clinic_id: c.clinicId,
                service_id: service,
                start: new Date(DAY + minute * MINUTE),
                patient: { name: "P" },
              })
              .catch(() => undefined);
          }
          const listed = await staff.availability.get({
            clinic_id: c.clinicId,
            service_id: service,
            from: monday,
            to: monday,
          });
          const offered = new Map(listed.slots.map((s) => [s.start.getTime(), new Set(s.provider_ids)]));
          const starts = [...r.starts.map((m) => DAY + m * MINUTE), ...[...offered.keys()].slice(0, 5)];
          for (const start of starts) {
            const explanation = await staff.availability.explain({
              clinic_id: c.clinicId,
              service_id: service,
              start: new Date(start),
            });
            for (const p of explanation.providers) {
              expect([start, p.provider_id, p.bookable]).toEqual([
                start,
                p.provider_id,
                offered.get(start)?.has(p.provider_id) ?? false,
              ]);
              expect(p.bookable).toBe(p.reasons.length === 0);
            }
            expect(explanation.bookable).toBe(offered.has(start));
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
