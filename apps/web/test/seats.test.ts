// Plain unit tests (no browser): the seats of a group session and their words in both locales.
import { describe, expect, it } from "vitest";
import { seatsTaken } from "../src/deskDay.ts";
import { strings } from "../src/i18n.ts";

const at = (hhmm: string) => new Date(`2026-03-30T${hhmm}:00Z`);
const appointment = (provider: string, service: string, start: string, end: string) => ({
  provider_id: provider,
  service_id: service,
  start: at(start),
  end: at(end),
});

describe("seatsTaken", () => {
  it("counts the appointments sharing one group slot: same provider, service, start and end", () => {
    const first = appointment("anna", "yoga", "09:00", "10:00");
    const all = [
      first,
      appointment("anna", "yoga", "09:00", "10:00"),
      appointment("anna", "yoga", "09:00", "10:00"),
      // Not the same slot: another provider, service, start or end.
      appointment("ben", "yoga", "09:00", "10:00"),
      appointment("anna", "pilates", "09:00", "10:00"),
      appointment("anna", "yoga", "10:00", "11:00"),
      appointment("anna", "yoga", "09:00", "09:30"),
    ];
    expect(seatsTaken(all, first)).toBe(3);
    expect(seatsTaken(all, all[3] ?? first)).toBe(1);
    expect(seatsTaken([first], first)).toBe(1);
  });
});

describe("the words for series and seats", () => {
  it("has each in English and German", () => {
    expect(strings.en.seatsLeft(1)).toBe("1 seat left");
    expect(strings.en.seatsLeft(7)).toBe("7 seats left");
    expect(strings.de.seatsLeft(1)).toBe("1 Platz frei");
    expect(strings.de.seatsLeft(7)).toBe("7 Plätze frei");
    expect(strings.en.seatsTaken(3, 10)).toBe("3 of 10 seats taken");
    expect(strings.de.seatsTaken(3, 10)).toBe("3 von 10 Plätzen belegt");
    expect([strings.en.series, strings.de.series]).toEqual(["Series", "Serie"]);
    expect(strings.de.seriesTitle("s-1")).toBe("Teil der Serie s-1");
    expect(strings.en.bookSeatAt("Anna Berg", "10:00")).toBe("Book a seat with Anna Berg at 10:00");
  });
});
