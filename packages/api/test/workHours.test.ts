import { describe, expect, it } from "vitest";
import { addMember, callerFor, clinicFixture, codeOf, rejectionOf, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

async function withProvider() {
  const c = await clinicFixture(t.db);
  const provider = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved", fullName: "Anna" });
  return { ...c, provider, asProvider: callerFor(t.db, provider) };
}

describe("clinic work hours", () => {
  it("creates split shifts, allows adjacency and 24:00, lists by weekday and opening", async () => {
    const c = await withProvider();
    const add = (weekday: number, opens_at: string, closes_at: string) =>
      c.asAdmin.workHours.createClinic({ clinic_id: c.clinicId, weekday, opens_at, closes_at });
    const morning = await add(1, "09:00", "12:00");
    expect(morning).toMatchObject({
      scope: "clinic",
      clinic_id: c.clinicId,
      provider_id: null,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    await add(1, "13:00", "17:00");
    await add(1, "12:00", "13:00");
    await add(7, "18:00", "24:00");
    await add(2, "00:00", "24:00");
    const list = await c.asStaff.workHours.listClinic({ clinic_id: c.clinicId });
    expect(list.work_hours.map((w) => `${String(w.weekday)} ${w.opens_at}-${w.closes_at}`)).toEqual([
      "1 09:00-12:00",
      "1 12:00-13:00",
      "1 13:00-17:00",
      "2 00:00-24:00",
      "7 18:00-24:00",
    ]);
    expect((await c.asStaff.workHours.listClinic({ clinic_id: c.clinicId, weekday: 7 })).work_hours).toHaveLength(1);
  });

  it("refuses overlaps with the contract's message, and closing not after opening with 422", async () => {
    const c = await withProvider();
    await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    const overlap = await rejectionOf(
      c.asAdmin.workHours.createClinic({ clinic_id: c.clinicId, weekday: 1, opens_at: "11:00", closes_at: "13:00" }),
    );
    expect(overlap.domainCode).toBe("WORK_HOUR_OVERLAP");
    expect(overlap.message).toBe("overlap detected, period 11:00-13:00 overlaps with existing period 09:00-12:00");
    expect(
      await codeOf(
        c.asAdmin.workHours.createClinic({ clinic_id: c.clinicId, weekday: 2, opens_at: "10:00", closes_at: "10:00" }),
      ),
    ).toBe("INVALID_TIME_RANGE");
    expect(
      await codeOf(
        c.asAdmin.workHours.createClinic({ clinic_id: c.clinicId, weekday: 2, opens_at: "11:00", closes_at: "10:00" }),
      ),
    ).toBe("INVALID_TIME_RANGE");
    for (const bad of [
      { weekday: 0 },
      { weekday: 8 },
      { opens_at: "9:00" },
      { closes_at: "24:30" },
      { opens_at: "12:60" },
    ]) {
      expect(
        await codeOf(
          c.asAdmin.workHours.createClinic({
            clinic_id: c.clinicId,
            weekday: 3,
            opens_at: "09:00",
            closes_at: "10:00",
            ...bad,
          }),
        ),
      ).toBe("VALIDATION_FAILED");
    }
  });

  it("edits with if_updated_at: 428 without, 409 stale with current_updated_at, the edited record excluded from overlap", async () => {
    const c = await withProvider();
    const first = await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 1,
      opens_at: "13:00",
      closes_at: "17:00",
    });
    expect(
      await codeOf(
        c.asAdmin.workHours.editClinic({ clinic_id: c.clinicId, work_hour_id: first.id, closes_at: "12:30" }),
      ),
    ).toBe("PRECONDITION_REQUIRED");
    // The stamp goes through JSON (milliseconds) and back; the same instant with another offset is accepted.
    const stamp = first.updated_at.toISOString();
    const shifted = new Date(first.updated_at.getTime() + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    const edited = await c.asAdmin.workHours.editClinic({
      clinic_id: c.clinicId,
      work_hour_id: first.id,
      if_updated_at: shifted,
      opens_at: "08:00",
      closes_at: "12:30",
    });
    expect(edited).toMatchObject({ opens_at: "08:00", closes_at: "12:30" });
    expect(edited.updated_at.getTime()).toBeGreaterThan(first.updated_at.getTime());
    const stale = await rejectionOf(
      c.asAdmin.workHours.editClinic({
        clinic_id: c.clinicId,
        work_hour_id: first.id,
        if_updated_at: stamp,
        closes_at: "12:00",
      }),
    );
    expect(stale.domainCode).toBe("STALE_UPDATED_AT");
    expect(stale.extra).toEqual({ current_updated_at: edited.updated_at.toISOString() });
    const overlap = await rejectionOf(
      c.asAdmin.workHours.editClinic({
        clinic_id: c.clinicId,
        work_hour_id: first.id,
        if_updated_at: edited.updated_at.toISOString(),
        closes_at: "14:00",
      }),
    );
    expect(overlap.message).toBe("overlap detected, period 08:00-14:00 overlaps with existing period 13:00-17:00");
    expect(
      await codeOf(
        c.asAdmin.workHours.editClinic({
          clinic_id: c.clinicId,
          work_hour_id: first.id,
          if_updated_at: edited.updated_at,
          closes_at: "07:00",
        }),
      ),
    ).toBe("INVALID_TIME_RANGE");
    expect(
      await codeOf(
        c.asAdmin.workHours.editClinic({
          clinic_id: c.clinicId,
          work_hour_id: first.id,
          if_updated_at: "2027-01-01T10:00:00",
          closes_at: "12:00",
        }),
      ),
    ).toBe("VALIDATION_FAILED");
    // Unchanged times, sent, still move updated_at forward; an empty edit changes nothing (docs/work-hours.md).
    const again = await c.asAdmin.workHours.editClinic({
      clinic_id: c.clinicId,
      work_hour_id: first.id,
      if_updated_at: edited.updated_at,
      opens_at: "08:00",
      closes_at: "12:30",
    });
    expect(again.updated_at.getTime()).toBeGreaterThan(edited.updated_at.getTime());
    const empty = await c.asAdmin.workHours.editClinic({
      clinic_id: c.clinicId,
      work_hour_id: first.id,
      if_updated_at: again.updated_at,
    });
    expect(empty).toEqual(again);
    expect(
      await codeOf(
        c.asAdmin.workHours.editClinic({ clinic_id: c.clinicId, work_hour_id: first.id, if_updated_at: stamp }),
      ),
    ).toBe("STALE_UPDATED_AT");
  });

  it("deletes without if_updated_at; other clinics' ids are 404; STAFF cannot write", async () => {
    const c = await withProvider();
    const other = await withProvider();
    const hour = await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 4,
      opens_at: "09:00",
      closes_at: "10:00",
    });
    expect(
      await codeOf(other.asAdmin.workHours.deleteClinic({ clinic_id: other.clinicId, work_hour_id: hour.id })),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        other.asAdmin.workHours.editClinic({
          clinic_id: other.clinicId,
          work_hour_id: hour.id,
          if_updated_at: hour.updated_at,
        }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        c.asStaff.workHours.createClinic({ clinic_id: c.clinicId, weekday: 4, opens_at: "11:00", closes_at: "12:00" }),
      ),
    ).toBe("FORBIDDEN");
    expect(await codeOf(c.asStaff.workHours.deleteClinic({ clinic_id: c.clinicId, work_hour_id: hour.id }))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(c.asCustom.workHours.listClinic({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    await c.asAdmin.workHours.deleteClinic({ clinic_id: c.clinicId, work_hour_id: hour.id });
    expect((await c.asAdmin.workHours.listClinic({ clinic_id: c.clinicId })).work_hours).toEqual([]);
    expect(await codeOf(c.asAdmin.workHours.deleteClinic({ clinic_id: c.clinicId, work_hour_id: hour.id }))).toBe(
      "NOT_FOUND",
    );
  });
});

describe("provider work hours", () => {
  it("lets the provider and CLINIC_ADMIN manage them, not another provider or STAFF", async () => {
    const c = await withProvider();
    const colleague = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved" });
    const own = await c.asProvider.workHours.createProvider({
      clinic_id: c.clinicId,
      provider_id: c.provider.id,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    expect(own).toMatchObject({ scope: "provider", provider_id: c.provider.id });
    // The clinic's periods do not collide with a provider's.
    await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    await c.asAdmin.workHours.createProvider({
      clinic_id: c.clinicId,
      provider_id: c.provider.id,
      weekday: 1,
      opens_at: "13:00",
      closes_at: "17:00",
    });
    expect(
      await codeOf(
        callerFor(t.db, colleague).workHours.createProvider({
          clinic_id: c.clinicId,
          provider_id: c.provider.id,
          weekday: 2,
          opens_at: "09:00",
          closes_at: "12:00",
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(
        c.asStaff.workHours.createProvider({
          clinic_id: c.clinicId,
          provider_id: c.provider.id,
          weekday: 2,
          opens_at: "09:00",
          closes_at: "12:00",
        }),
      ),
    ).toBe("FORBIDDEN");
    const overlap = await rejectionOf(
      c.asProvider.workHours.createProvider({
        clinic_id: c.clinicId,
        provider_id: c.provider.id,
        weekday: 1,
        opens_at: "11:00",
        closes_at: "13:30",
      }),
    );
    expect(overlap.message).toBe("overlap detected, period 11:00-13:30 overlaps with existing period 09:00-12:00");
    const edited = await c.asProvider.workHours.editProvider({
      provider_id: c.provider.id,
      work_hour_id: own.id,
      if_updated_at: own.updated_at,
      closes_at: "12:30",
    });
    expect(edited.closes_at).toBe("12:30");
    expect(
      await codeOf(
        callerFor(t.db, colleague).workHours.editProvider({
          provider_id: c.provider.id,
          work_hour_id: own.id,
          if_updated_at: edited.updated_at,
          closes_at: "12:45",
        }),
      ),
    ).toBe("FORBIDDEN");
    const list = await c.asStaff.workHours.listProvider({ clinic_id: c.clinicId, provider_id: c.provider.id });
    expect(list.work_hours.map((w) => `${w.opens_at}-${w.closes_at}`)).toEqual(["09:00-12:30", "13:00-17:00"]);
    await c.asProvider.workHours.deleteProvider({ provider_id: c.provider.id, work_hour_id: own.id });
    expect(
      (await c.asProvider.workHours.listProvider({ clinic_id: c.clinicId, provider_id: c.provider.id })).work_hours,
    ).toHaveLength(1);
  });

  it("refuses a non-provider or another clinic's provider, and hides other clinics' hours", async () => {
    const c = await withProvider();
    const other = await withProvider();
    expect(
      await codeOf(
        c.asAdmin.workHours.createProvider({
          clinic_id: c.clinicId,
          provider_id: c.staff.id,
          weekday: 1,
          opens_at: "09:00",
          closes_at: "10:00",
        }),
      ),
    ).toBe("NOT_A_PROVIDER");
    expect(
      await codeOf(
        c.asAdmin.workHours.createProvider({
          clinic_id: c.clinicId,
          provider_id: other.provider.id,
          weekday: 1,
          opens_at: "09:00",
          closes_at: "10:00",
        }),
      ),
    ).toBe("NOT_A_PROVIDER");
    expect(
      await codeOf(c.asAdmin.workHours.listProvider({ clinic_id: c.clinicId, provider_id: other.provider.id })),
    ).toBe("NOT_FOUND");
    const hour = await other.asAdmin.workHours.createProvider({
      clinic_id: other.clinicId,
      provider_id: other.provider.id,
      weekday: 1,
      opens_at: "09:00",
      closes_at: "10:00",
    });
    // Without clinic_id the hour's own clinic applies; a stranger to it sees 404, not 403.
    expect(
      await codeOf(
        c.asAdmin.workHours.editProvider({
          provider_id: other.provider.id,
          work_hour_id: hour.id,
          if_updated_at: hour.updated_at,
          closes_at: "11:00",
        }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(c.asAdmin.workHours.deleteProvider({ provider_id: other.provider.id, work_hour_id: hour.id })),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        c.asAdmin.workHours.deleteProvider({
          clinic_id: c.clinicId,
          provider_id: other.provider.id,
          work_hour_id: hour.id,
        }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        c.asAdmin.workHours.deleteProvider({
          clinic_id: other.clinicId,
          provider_id: other.provider.id,
          work_hour_id: hour.id,
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(other.asAdmin.workHours.deleteProvider({ provider_id: c.provider.id, work_hour_id: hour.id })),
    ).toBe("NOT_FOUND");
  });
});
