// The clinic settings form's pure parts (src/setup/clinicForm.ts): the PATCH carries only what
// changed, empty means the API's null, and the page's own checks stop only what cannot be sent.
import { describe, expect, it } from "vitest";
import type { Clinic } from "../src/setup/areas.ts";
import { draftOf, draftProblems, patchOf } from "../src/setup/clinicForm.ts";

const clinic: Clinic = {
  id: "c",
  name: "Praxis",
  timezone: "Europe/Berlin",
  online_booking: false,
  patient_cancel_cutoff_min: 1440,
  max_open_bookings_per_patient: 3,
  reminder_offsets_min: [1440],
  hold_minutes: 10,
  no_show_limit: null,
  locale: "en",
  offer_minutes: 30,
  guest_holds_max: 20,
  retention_days: 365,
  created_at: new Date(0),
  updated_at: new Date(0),
};

describe("the clinic settings form", () => {
  it("sends nothing when nothing changed", () => {
    expect(patchOf(clinic, draftOf(clinic))).toEqual({});
    expect(draftProblems(draftOf(clinic))).toEqual({});
  });

  it("sends exactly the changed settings, empty as null, reminders as numbers", () => {
    const draft = {
      ...draftOf(clinic),
      name: "Praxis Neu",
      hold_minutes: " 15 ",
      no_show_limit: "2",
      retention_days: "",
      reminder_offsets_min: "1440, 60",
      online_booking: true,
    };
    expect(patchOf(clinic, draft)).toEqual({
      name: "Praxis Neu",
      hold_minutes: 15,
      no_show_limit: 2,
      retention_days: null,
      reminder_offsets_min: [1440, 60],
      online_booking: true,
    });
  });

  it("names a number it cannot send at its field, and leaves ranges to the server", () => {
    const draft = {
      ...draftOf(clinic),
      hold_minutes: "ten",
      reminder_offsets_min: "1440, soon",
      offer_minutes: "99999",
    };
    expect(Object.keys(draftProblems(draft)).sort()).toEqual(["hold_minutes", "reminder_offsets_min"]);
    expect(draftProblems({ ...draftOf(clinic), no_show_limit: "" })).toEqual({});
    expect(draftProblems({ ...draftOf(clinic), max_open_bookings_per_patient: "" })).toEqual({
      max_open_bookings_per_patient: "Open bookings per patient, at most: please give a whole number.",
    });
  });
});
