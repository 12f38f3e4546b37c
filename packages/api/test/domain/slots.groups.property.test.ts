// Group sessions in the slot engine (CONTRACT §14, docs/group-sessions.md), as properties over
// random schedules: capacity 1–5, 1–3 providers, random hours, overrides and closures, seats of the
// queried service on grid slots (up to and beyond capacity), off-grid and other-length bookings of
// it, bookings of other services, time taken elsewhere, buffers, steps, notice and horizon.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Interval } from "../../src/domain/intervals.ts";
import {
  type Booking,
  type DateOverride,
  type ProviderSchedule,
  type Slot,
  type SlotQuery,
  type WeeklyPeriod,
  computeSlots,
  explainStart,
} from "../../src/domain/slots.ts";
import { addDays, isoWeekday } from "../../src/domain/timezone.ts";

const MINUTE = 60_000;
const monday = "2027-03-15";
const DAYS = 2;
const DAY_START = Date.parse(`${monday}T00:00:00Z`);
const SPAN = DAYS * 1440;
const dates = Array.from({ length: DAYS }, (_, d) => addDays(monday, d));
const SERVICE = "svc-group";
const OTHER = "svc-other";
const RUNS = Number(process.env.GROUP_RUNS ?? 200);

const periodArb = fc
  .tuple(fc.integer({ min: 1, max: DAYS }), fc.integer({ min: 0, max: 1400 }), fc.integer({ min: 30, max: 600 }))
  .map(([weekday, o, len]): WeeklyPeriod => ({ weekday, opensMin: o, closesMin: Math.min(1440, o + len) }));
const overrideArb = fc
  .tuple(
    fc.integer({ min: 0, max: DAYS - 1 }),
    fc.array(fc.tuple(fc.integer({ min: 0, max: 1400 }), fc.integer({ min: 30, max: 400 })), { maxLength: 2 }),
  )
  .map(([d, periods]): DateOverride => ({
    date: dates[d] ?? monday,
    periods: periods.map(([o, len]) => ({ opensMin: o, closesMin: Math.min(1440, o + len) })),
  }));
const uniqueByDate = (overrides: DateOverride[]) => [...new Map(overrides.map((o) => [o.date, o])).values()];
const intervalArb = fc
  .tuple(fc.integer({ min: -60, max: SPAN }), fc.integer({ min: 1, max: 180 }))
  .map(([s, len]): Interval => ({ start: DAY_START + s * MINUTE, end: DAY_START + (s + len) * MINUTE }));

/** Bookings of one provider, described before the grid is known. */
const bookingsArb = fc.record({
  // Seats on grid slots: which grid slot (modulo the provider's grid), how many (clipped to capacity + 1).
  seats: fc.array(
    fc.record({
      pick: fc.nat(),
      count: fc.integer({ min: 1, max: 6 }),
      before: fc.integer({ min: 0, max: 20 }),
      after: fc.integer({ min: 0, max: 20 }),
    }),
    { maxLength: 4 },
  ),
  // Bookings of the queried service with the service's duration at any minute (mostly off the grid).
  anywhere: fc.array(fc.integer({ min: 0, max: SPAN - 1 }), { maxLength: 2 }),
  // Bookings of any length, of this or another service.
  others: fc.array(
    fc.record({
      interval: intervalArb,
      serviceId: fc.constantFrom(OTHER, SERVICE, undefined),
      before: fc.integer({ min: 0, max: 20 }),
      after: fc.integer({ min: 0, max: 20 }),
    }),
    { maxLength: 3 },
  ),
  // Time taken in another clinic (as the loader gives it: no id, no service, no buffers).
  elsewhere: fc.array(intervalArb, { maxLength: 2 }),
});

const rawProviderArb = fc.record({
  hours: fc.array(periodArb, { maxLength: 4 }),
  overrides: fc.array(overrideArb, { maxLength: 1 }),
  closures: fc.array(intervalArb, { maxLength: 2 }),
  bookings: bookingsArb,
  // Mostly approved: a provider who is not approved offers nothing.
  unapproved: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});

/** The provider's grid for the service: every slot it would offer with nothing booked, closed or past. */
function gridOf(q: SlotQuery, provider: ProviderSchedule): Slot[] {
  return computeSlots({
    ...q,
    nowMs: -Infinity,
    noticeMin: 0,
    horizonDays: null,
    clinicClosures: [],
    capacity: 1,
    serviceId: undefined,
    providers: [{ ...provider, approved: true, closures: [], bookings: [] }],
  });
}

function queryArbWith(capacityArb: fc.Arbitrary<number>): fc.Arbitrary<SlotQuery> {
  return fc
    .record({
      capacity: capacityArb,
      clinic: fc.array(periodArb, { minLength: 1, maxLength: 4 }),
      clinicOverrides: fc.array(overrideArb, { maxLength: 1 }),
      providers: fc.array(rawProviderArb, { minLength: 1, maxLength: 3 }),
      closures: fc.array(intervalArb, { maxLength: 2 }),
      duration: fc.integer({ min: 10, max: 120 }),
      step: fc.option(fc.integer({ min: 5, max: 90 }), { nil: null }),
      before: fc.integer({ min: 0, max: 30 }),
      after: fc.integer({ min: 0, max: 30 }),
      nowMin: fc.oneof(fc.constant(-1), fc.integer({ min: -1, max: SPAN })),
      notice: fc.integer({ min: 0, max: 240 }),
      horizon: fc.option(fc.integer({ min: 0, max: DAYS }), { nil: null }),
    })
    .map((r): SlotQuery => {
      const q: SlotQuery = {
        timeZone: "UTC",
        fromDate: monday,
        toDate: dates[DAYS - 1] ?? monday,
        durationMin: r.duration,
        stepMin: r.step,
        bufferBeforeMin: r.before,
        bufferAfterMin: r.after,
        noticeMin: r.notice,
        horizonDays: r.horizon,
        nowMs: DAY_START + r.nowMin * MINUTE,
        capacity: r.capacity,
        serviceId: SERVICE,
        clinicHours: r.clinic,
        clinicOverrides: uniqueByDate(r.clinicOverrides),
        clinicClosures: r.closures,
        providers: [],
      };
      const durationMs = r.duration * MINUTE;
      const providers = r.providers.map((p, k): ProviderSchedule => {
        const providerId = `p${String(k)}`;
        const schedule: ProviderSchedule = {
          providerId,
          hours: p.hours,
          overrides: uniqueByDate(p.overrides),
          closures: p.closures,
          approved: !p.unapproved,
        };
        const grid = gridOf(q, schedule);
        const bookings: Booking[] = [];
        let n = 0;
        const id = () => `${providerId}-b${String(n++)}`;
        for (const seat of p.bookings.seats) {
          const slot = grid[seat.pick % Math.max(1, grid.length)];
          if (!slot) break;
          const count = Math.min(seat.count, r.capacity + 1);
          for (let c = 0; c < count; c++)
            bookings.push({
              id: id(),
              serviceId: SERVICE,
              start: slot.start,
              end: slot.end,
              bufferBeforeMin: seat.before,
              bufferAfterMin: seat.after,
            });
        }
        for (const minute of p.bookings.anywhere) {
          const start = DAY_START + minute * MINUTE;
          bookings.push({
            id: id(),
            serviceId: SERVICE,
            start,
            end: start + durationMs,
            bufferBeforeMin: r.before,
            bufferAfterMin: r.after,
          });
        }
        for (const o of p.bookings.others)
          bookings.push({
            id: id(),
            ...(o.serviceId === undefined ? {} : { serviceId: o.serviceId }),
            start: o.interval.start,
            end: o.interval.end,
            bufferBeforeMin: o.before,
            bufferAfterMin: o.after,
          });
        for (const e of p.bookings.elsewhere)
          bookings.push({ id: "", start: e.start, end: e.end, bufferBeforeMin: 0, bufferAfterMin: 0, elsewhere: true });
        return { ...schedule, bookings };
      });
      return { ...q, providers };
    });
}

const groupQueryArb = queryArbWith(fc.integer({ min: 1, max: 5 }));

/** The seats of a provider at exactly [start, end): bookings of the queried service, never time elsewhere. */
const seatsAt = (q: SlotQuery, provider: ProviderSchedule, start: number, end: number) =>
  (provider.bookings ?? []).filter(
    (b) => b.serviceId === q.serviceId && b.elsewhere !== true && b.start === start && b.end === end,
  ).length;

const providerOf = (q: SlotQuery, id: string) => {
  const provider = q.providers.find((p) => p.providerId === id);
  if (!provider) throw new Error(`no provider ${id}`);
  return provider;
};

/** Starts to look at: every provider's grid starts, the seats' starts, and some minutes of the dates. */
function startsOf(q: SlotQuery, minutes: readonly number[]): number[] {
  const starts = new Set<number>(minutes.map((m) => DAY_START + m * MINUTE));
  for (const p of q.providers) {
    for (const s of gridOf(q, p)) starts.add(s.start);
    for (const b of p.bookings ?? [])
      if (b.start >= DAY_START && b.start < DAY_START + SPAN * MINUTE) starts.add(b.start);
  }
  return [...starts].sort((a, b) => a - b);
}

const listedBy = (slots: readonly Slot[]) => new Map(slots.map((s) => [s.start, new Set(s.providerIds)]));

describe("group sessions: an explanation says bookable exactly when the start is offered to that provider", () => {
  it("for every grid start (and seat starts and random minutes) of random group schedules", () => {
    fc.assert(
      fc.property(groupQueryArb, fc.array(fc.integer({ min: 0, max: SPAN - 1 }), { maxLength: 15 }), (q, minutes) => {
        const slots = computeSlots(q);
        const listed = listedBy(slots);
        for (const start of startsOf(q, minutes)) {
          for (const p of explainStart(q, start).providers) {
            expect({ start, provider: p.providerId, bookable: p.reasons.length === 0 }).toEqual({
              start,
              provider: p.providerId,
              bookable: listed.get(start)?.has(p.providerId) ?? false,
            });
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("group sessions: a slot is offered exactly as the capacity-1 engine offers it without its own open session", () => {
  it("for random group schedules", () => {
    fc.assert(
      fc.property(groupQueryArb, (q) => {
        const capacity = q.capacity ?? 1;
        const slots = computeSlots(q);
        const listed = listedBy(slots);
        // Every booking blocks: the capacity-1 engine, checked against a minute model elsewhere.
        const single = listedBy(computeSlots({ ...q, capacity: 1 }));
        for (const start of startsOf(q, [])) {
          const end = start + q.durationMin * MINUTE;
          for (const provider of q.providers) {
            const seats = seatsAt(q, provider, start, end);
            let expected: boolean;
            if (capacity <= 1 || seats === 0) expected = single.get(start)?.has(provider.providerId) ?? false;
            else if (seats >= capacity) expected = false;
            else {
              // The session's own seats removed, everything else kept.
              const without: ProviderSchedule = {
                ...provider,
                bookings: (provider.bookings ?? []).filter(
                  (b) => !(b.serviceId === q.serviceId && b.elsewhere !== true && b.start === start && b.end === end),
                ),
              };
              expected = computeSlots({ ...q, capacity: 1, providers: [without] }).some((s) => s.start === start);
            }
            expect({
              start,
              provider: provider.providerId,
              seats,
              offered: listed.get(start)?.has(provider.providerId) ?? false,
            }).toEqual({
              start,
              provider: provider.providerId,
              seats,
              offered: expected,
            });
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("group sessions: remaining", () => {
  it("is the seats left over the slot's providers, at least 1; absent for capacity 1", () => {
    fc.assert(
      fc.property(groupQueryArb, (q) => {
        const capacity = q.capacity ?? 1;
        const slots = computeSlots(q);
        for (const slot of slots) {
          if (capacity === 1) {
            expect("remaining" in slot).toBe(false);
            continue;
          }
          const expected = slot.providerIds.reduce(
            (sum, id) => sum + capacity - seatsAt(q, providerOf(q, id), slot.start, slot.end),
            0,
          );
          expect({ start: slot.start, remaining: slot.remaining }).toEqual({ start: slot.start, remaining: expected });
          expect(slot.remaining).toBeGreaterThanOrEqual(1);
          for (const id of slot.providerIds)
            expect(seatsAt(q, providerOf(q, id), slot.start, slot.end)).toBeLessThan(capacity);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

// Period edges mostly on five-minute marks around the transition (01:30–04:10 wall clock in these zones).
const edgeArb = fc.oneof(
  { arbitrary: fc.integer({ min: 18, max: 50 }).map((n) => n * 5), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 1439 }), weight: 1 },
);

// A split shift whose break holds the transition: the first period ends in the spring-forward gap
// (02:00–03:00), the second starts after it, so their instants can overlap.
const splitShiftArb = fc
  .tuple(
    fc.integer({ min: 12, max: 34 }),
    fc.integer({ min: 1, max: 11 }),
    fc.integer({ min: 36, max: 46 }),
    fc.integer({ min: 1, max: 24 }),
  )
  .map(([opens, breakAt, resumes, len]): [number, number][] => {
    const end = Math.max(opens + 1, 24 + breakAt) * 5;
    return [
      [opens * 5, end],
      [resumes * 5, (resumes + len) * 5],
    ];
  });

/** Zones with their 2027 transition dates (spring forward and fall back). */
const transitions: [zone: string, date: string][] = [
  ["Europe/Berlin", "2027-03-28"],
  ["Europe/Berlin", "2027-10-31"],
  ["America/New_York", "2027-03-14"],
  ["America/New_York", "2027-11-07"],
  ["Australia/Lord_Howe", "2027-10-03"],
  ["Australia/Lord_Howe", "2027-04-04"],
];

/** One DST transition date of a zone; providers with split shifts around it, seats on their grids. */
const dstQueryArb = fc
  .record({
    zoneDate: fc.constantFrom(...transitions),
    capacity: fc.integer({ min: 2, max: 5 }),
    duration: fc.oneof(fc.constantFrom(5, 10, 15, 20, 30), fc.integer({ min: 5, max: 90 })),
    step: fc.option(fc.constantFrom(5, 10, 15, 20, 30, 60, 7), { nil: null }),
    providers: fc.array(
      fc.record({
        periods: fc.oneof(fc.array(fc.tuple(edgeArb, edgeArb), { minLength: 1, maxLength: 3 }), splitShiftArb),
        seats: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 6 })), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map((r): SlotQuery => {
    const [zone, date] = r.zoneDate;
    const weekday = isoWeekday(date);
    const q: SlotQuery = {
      timeZone: zone,
      fromDate: date,
      toDate: date,
      durationMin: r.duration,
      stepMin: r.step,
      nowMs: 0,
      capacity: r.capacity,
      serviceId: SERVICE,
      clinicHours: [{ weekday, opensMin: 0, closesMin: 1440 }],
      clinicClosures: [],
      providers: [],
    };
    const providers = r.providers.map((p, k): ProviderSchedule => {
      const schedule: ProviderSchedule = {
        providerId: `p${String(k)}`,
        hours: p.periods.map(([a, b]) => ({ weekday, opensMin: Math.min(a, b), closesMin: Math.max(a + 1, b) })),
      };
      const grid = gridOf(q, schedule);
      const bookings = p.seats.flatMap(([pick, count], n) => {
        const slot = grid[pick % Math.max(1, grid.length)];
        if (!slot) return [];
        return Array.from({ length: Math.min(count, r.capacity + 1) }, (_, c) => ({
          id: `${schedule.providerId}-s${String(n)}-${String(c)}`,
          serviceId: SERVICE,
          start: slot.start,
          end: slot.end,
          bufferBeforeMin: 0,
          bufferAfterMin: 0,
        }));
      });
      return { ...schedule, bookings };
    });
    return { ...q, providers };
  });

describe("group sessions on DST days", () => {
  it("remaining is the seats left over the slot's providers, each counted once", () => {
    fc.assert(
      fc.property(dstQueryArb, (q) => {
        const capacity = q.capacity ?? 1;
        for (const slot of computeSlots(q)) {
          const expected = slot.providerIds.reduce(
            (sum, id) => sum + capacity - seatsAt(q, providerOf(q, id), slot.start, slot.end),
            0,
          );
          expect(new Set(slot.providerIds).size).toBe(slot.providerIds.length);
          expect({ start: slot.startLocal, remaining: slot.remaining }).toEqual({
            start: slot.startLocal,
            remaining: expected,
          });
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("an explanation says bookable exactly when the start is offered to that provider", () => {
    fc.assert(
      fc.property(dstQueryArb, (q) => {
        const listed = listedBy(computeSlots(q));
        const starts = new Set(q.providers.flatMap((p) => gridOf(q, p).map((s) => s.start)));
        for (const start of starts) {
          const explanation = explainStart(q, start);
          if (explanation.date !== q.fromDate) continue;
          for (const p of explanation.providers)
            expect({ start, provider: p.providerId, bookable: p.reasons.length === 0 }).toEqual({
              start,
              provider: p.providerId,
              bookable: listed.get(start)?.has(p.providerId) ?? false,
            });
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("group sessions: one more seat", () => {
  it("never makes a slot or a provider appear, and removes its slot exactly when it was the last seat", () => {
    fc.assert(
      fc.property(
        queryArbWith(fc.integer({ min: 2, max: 5 })),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        (q, pickSlot, pickProvider, before, after) => {
          const capacity = q.capacity ?? 1;
          const slots = computeSlots(q);
          const slot = slots[pickSlot % Math.max(1, slots.length)];
          if (!slot) return;
          const providerId = slot.providerIds[pickProvider % slot.providerIds.length] ?? "";
          const taken = seatsAt(q, providerOf(q, providerId), slot.start, slot.end);
          const seat: Booking = {
            id: "new-seat",
            serviceId: SERVICE,
            start: slot.start,
            end: slot.end,
            bufferBeforeMin: before,
            bufferAfterMin: after,
          };
          const more: SlotQuery = {
            ...q,
            providers: q.providers.map((p) =>
              p.providerId === providerId ? { ...p, bookings: [...(p.bookings ?? []), seat] } : p,
            ),
          };
          const afterSlots = computeSlots(more);
          const previous = new Map(slots.map((s) => [s.start, s]));
          for (const s of afterSlots) {
            const was = previous.get(s.start);
            expect(was, `slot ${String(s.start)} appeared`).toBeDefined();
            if (!was) continue;
            expect(s.end).toBe(was.end);
            // Nobody is added; only the seat's provider can be removed.
            expect(s.providerIds.every((id) => was.providerIds.includes(id))).toBe(true);
            expect(s.providerIds.filter((id) => id !== providerId)).toEqual(
              was.providerIds.filter((id) => id !== providerId),
            );
          }
          for (const was of slots) {
            if (was.start === slot.start) continue;
            // Other providers keep their other slots.
            if (was.providerIds.some((id) => id !== providerId))
              expect(afterSlots.some((s) => s.start === was.start)).toBe(true);
          }
          const same = afterSlots.find((s) => s.start === slot.start);
          const full = taken + 1 >= capacity;
          // One seat fewer, whoever it was; the slot goes exactly when that was the last seat.
          expect(same === undefined).toBe(slot.remaining === 1);
          expect(same === undefined).toBe(full && slot.providerIds.length === 1);
          if (same) {
            expect(same.remaining).toBe((slot.remaining ?? 0) - 1);
            expect(same.providerIds).toEqual(
              full ? slot.providerIds.filter((id) => id !== providerId) : slot.providerIds,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("group sessions: capacity 1 with a service id", () => {
  it("gives exactly the answer and the explanations of the query without them", () => {
    fc.assert(
      fc.property(
        queryArbWith(fc.constant(1)),
        fc.constantFrom(1, undefined),
        fc.array(fc.integer({ min: 0, max: SPAN - 1 }), { maxLength: 10 }),
        (q, capacity, minutes) => {
          const { capacity: _c, serviceId: _s, ...plain } = q;
          const withService: SlotQuery = {
            ...plain,
            serviceId: SERVICE,
            ...(capacity === undefined ? {} : { capacity }),
          };
          const slots = computeSlots(withService);
          expect(slots).toEqual(computeSlots(plain));
          expect(slots.some((s) => "remaining" in s)).toBe(false);
          for (const start of startsOf(q, minutes))
            expect(explainStart(withService, start)).toEqual(explainStart(plain, start));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("group sessions: time taken elsewhere", () => {
  it("is never a seat, even when it names the queried service and sits exactly on a slot", () => {
    fc.assert(
      fc.property(
        queryArbWith(fc.integer({ min: 2, max: 5 })),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        (q, picks) => {
          // Time elsewhere exactly on grid slots, with and without the queried service's id.
          const plain = {
            ...q,
            providers: q.providers.map((p) => {
              const grid = gridOf(q, p);
              const extra: Booking[] = picks.flatMap((pick) => {
                const slot = grid[pick % Math.max(1, grid.length)];
                return slot
                  ? [
                      {
                        id: "",
                        start: slot.start,
                        end: slot.end,
                        bufferBeforeMin: 0,
                        bufferAfterMin: 0,
                        elsewhere: true,
                      },
                    ]
                  : [];
              });
              return { ...p, bookings: [...(p.bookings ?? []), ...extra] };
            }),
          };
          const named: SlotQuery = {
            ...plain,
            providers: plain.providers.map((p) => ({
              ...p,
              bookings: p.bookings.map((b) => (b.elsewhere === true ? { ...b, serviceId: SERVICE } : b)),
            })),
          };
          expect(computeSlots(named)).toEqual(computeSlots(plain));
          for (const start of startsOf(plain, []))
            expect(explainStart(named, start).providers.map((p) => p.reasons)).toEqual(
              explainStart(plain, start).providers.map((p) => p.reasons),
            );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// The smallest cases the properties above found, by hand (docs/group-sessions.md).
describe("group sessions: known counterexamples", () => {
  const at = (text: string) => Date.parse(text);
  const seat = (id: string, start: string, end: string, extra: Partial<Booking> = {}): Booking => ({
    id,
    serviceId: SERVICE,
    start: at(start),
    end: at(end),
    bufferBeforeMin: 0,
    bufferAfterMin: 0,
    ...extra,
  });
  const nineToTen: WeeklyPeriod[] = [{ weekday: 1, opensMin: 540, closesMin: 600 }];
  const base: SlotQuery = {
    timeZone: "UTC",
    fromDate: monday,
    toDate: monday,
    nowMs: 0,
    durationMin: 30,
    capacity: 2,
    serviceId: SERVICE,
    clinicHours: nineToTen,
    clinicClosures: [],
    providers: [],
  };

  it("a seat of the next session blocks a slot through the buffer, as explainStart says", () => {
    // Two back-to-back sessions, each with a seat left; then the service gains a 10-minute buffer after.
    const q: SlotQuery = {
      ...base,
      bufferAfterMin: 10,
      providers: [
        {
          providerId: "p1",
          hours: nineToTen,
          bookings: [
            seat("a", "2027-03-15T09:00:00Z", "2027-03-15T09:30:00Z"),
            seat("b", "2027-03-15T09:30:00Z", "2027-03-15T10:00:00Z"),
          ],
        },
      ],
    };
    expect(explainStart(q, at("2027-03-15T09:00:00Z")).providers[0]?.reasons.map((r) => r.code)).toEqual(["BUFFER"]);
    expect(computeSlots(q).map((s) => [s.startLocal, s.remaining])).toEqual([["2027-03-15T09:30", 1]]);
  });

  it("time taken elsewhere is no seat, even with the queried service's id", () => {
    const q: SlotQuery = {
      ...base,
      providers: [
        {
          providerId: "p1",
          hours: nineToTen,
          bookings: [seat("", "2027-03-15T09:00:00Z", "2027-03-15T09:30:00Z", { elsewhere: true })],
        },
      ],
    };
    expect(explainStart(q, at("2027-03-15T09:00:00Z")).providers[0]?.reasons.map((r) => r.code)).toEqual(["BOOKED"]);
    expect(computeSlots(q).map((s) => [s.startLocal, s.remaining])).toEqual([["2027-03-15T09:30", 2]]);
  });

  it("a provider whose two windows give the same start in a spring-forward gap counts their seats once", () => {
    // Berlin, Sunday 2027-03-28: 02:02–02:12 does not exist and reads as 03:02–03:12, p1's other window.
    const sunday = (opensMin: number, closesMin: number): WeeklyPeriod => ({ weekday: 7, opensMin, closesMin });
    const q: SlotQuery = {
      ...base,
      timeZone: "Europe/Berlin",
      fromDate: "2027-03-28",
      toDate: "2027-03-28",
      durationMin: 10,
      clinicHours: [sunday(0, 1440)],
      providers: [
        { providerId: "p0", hours: [sunday(60, 70)] },
        { providerId: "p1", hours: [sunday(122, 132), sunday(182, 192)] },
      ],
    };
    expect(computeSlots(q).map((s) => [s.startLocal, s.providerIds, s.remaining])).toEqual([
      ["2027-03-28T01:00", ["p0"], 2],
      ["2027-03-28T03:02", ["p1"], 2],
    ]);
  });
});
