import { localDateOf } from "./timezone.ts";

/** The key of a provider's local date in a day load: `${providerId}|${YYYY-MM-DD}`. */
export const dayLoadKey = (providerId: string, date: string): string => `${providerId}|${date}`;

/**
 * What a provider has on a local day, the one definition in TypeScript: this clinic's appointments
 * that occupy the provider's time (the schedule's bookings; time taken in another clinic does not
 * count), by the local date of their start in the clinic's zone. The any-provider rule ranks free
 * providers by it (fewest first), and the engine's daily limit (slots.ts rule 4a, §8 v1.4) refuses a
 * provider's date by it when the read did not count it. The booking's read counts the same in SQL (`day_load` of
 * clinic_schedule_context, for the one day it checks); dayLoad.test compares the two.
 */
export function localDayLoad(
  // The fields of the engine's Booking this needs (slots.ts uses this for its daily limit: no import back).
  providers: readonly {
    providerId: string;
    bookings?: readonly { start: number; elsewhere?: boolean }[] | undefined;
  }[],
  timeZone: string,
): Map<string, number> {
  const load = new Map<string, number>();
  for (const provider of providers)
    for (const booking of provider.bookings ?? []) {
      if (booking.elsewhere) continue;
      const key = dayLoadKey(provider.providerId, localDateOf(booking.start, timeZone));
      load.set(key, (load.get(key) ?? 0) + 1);
    }
  return load;
}
