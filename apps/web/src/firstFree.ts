import { useQuery } from "@tanstack/react-query";
import { client, errorCodeOf } from "./api.ts";
import { addDays } from "./deskDay.ts";
import type { Slot } from "./SlotPicker.tsx";

/**
 * The first free time of a service (and provider) from now on, or null when there is none within
 * the service's horizon (at most a year): the booking page's default (§15 "next free time").
 */
export function useFirstFree(props: { clinicId: string; serviceId: string; providerId?: string | undefined }) {
  return useQuery({
    queryKey: ["slots", props.clinicId, props.serviceId, "first", props.providerId ?? ""],
    enabled: props.serviceId !== "",
    queryFn: async (): Promise<Slot | null> => {
      const provider = props.providerId ? { provider_id: props.providerId } : {};
      try {
        const answer = await client.nextFree.online.query({
          clinic_id: props.clinicId,
          service_id: props.serviceId,
          count: 1,
          ...provider,
        });
        return answer.slots[0] ?? null;
      } catch (error) {
        // Where the next-free route wants a sign-in, a visitor's page reads O3 window by window.
        if (errorCodeOf(error) !== "UNAUTHENTICATED") throw error;
        return firstFromAvailability(props.clinicId, props.serviceId, provider);
      }
    },
  });
}

/** O3 answers at most 62 dates at a time (§5); the search stops after a year. */
async function firstFromAvailability(
  clinicId: string,
  serviceId: string,
  provider: { provider_id?: string },
): Promise<Slot | null> {
  const clinic = await client.onlineBooking.clinic.query({ clinic_id: clinicId });
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: clinic.timezone }).format(new Date());
  for (let offset = 0; offset < 366; offset += 62) {
    const answer = await client.onlineBooking.availability.query({
      clinic_id: clinicId,
      service_id: serviceId,
      from: addDays(today, offset),
      to: addDays(today, Math.min(offset + 62, 366) - 1),
      ...provider,
    });
    const [first] = answer.slots;
    if (first) return first;
  }
  return null;
}
