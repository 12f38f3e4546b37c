// Plain unit tests (no browser): the rooms and equipment of an appointment (§14 `resources`) as
// the desk and the manage page show them, and their label in both locales.
import { describe, expect, it } from "vitest";
import { resourceNames } from "../src/deskDay.ts";
import { strings } from "../src/i18n.ts";

const resource = (name: string, kind = "treatment_room") => ({ id: `id-${name}`, name, kind });

describe("resourceNames", () => {
  it("joins the names of the resources an appointment holds with commas, in the order given", () => {
    expect(resourceNames([resource("Room 1")])).toBe("Room 1");
    expect(resourceNames([resource("Room 1"), resource("Ultrasound A", "ultrasound")])).toBe("Room 1, Ultrasound A");
  });

  it("is empty when the appointment holds none", () => {
    expect(resourceNames([])).toBe("");
    expect(resourceNames(undefined)).toBe("");
  });
});

describe("the words for rooms", () => {
  it("has the label in English and German, for one and for several", () => {
    expect(strings.en.room(1)).toBe("Room");
    expect(strings.de.room(1)).toBe("Raum");
    expect(strings.en.room(2)).toBe("Rooms and equipment");
    expect(strings.de.room(2)).toBe("Räume und Geräte");
  });
});
