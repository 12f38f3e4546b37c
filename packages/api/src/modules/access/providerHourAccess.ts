import type { Db } from "@clinic/db";
import { DomainError, notFound } from "../../errors.ts";
import { type ScheduleOwner, clinicOfProviderWorkHour } from "../schedule/index.ts";
import { type Caller, authorizeClinic } from "./clinicAccess.ts";
import { assertMayManageProvider } from "./providerAccess.ts";

/**
 * Authorises a write to a provider work hour named by its id alone (edit W7 and delete W8 of a provider's hour), whose clinic_id may be omitted. With
 * clinic_id the caller must be a member of it (403 otherwise); without, the hour's own clinic
 * applies, and a caller who is not a member of that clinic gets 404, as for a missing hour, so ids
 * of other clinics leak nothing. Then the caller must manage that provider's schedule.
 */
export async function authorizeProviderWorkHour(
  db: Db,
  caller: Caller,
  input: { clinic_id?: string | undefined; provider_id: string; work_hour_id: string },
): Promise<ScheduleOwner> {
  let clinicId = input.clinic_id;
  let membership;
  if (clinicId) {
    ({ membership } = await authorizeClinic(db, caller, clinicId, "MEMBER"));
  } else {
    clinicId = await clinicOfProviderWorkHour(db, input.work_hour_id, input.provider_id);
    if (!clinicId) throw notFound("work hour");
    try {
      ({ membership } = await authorizeClinic(db, caller, clinicId, "MEMBER"));
    } catch (error) {
      if (error instanceof DomainError && error.domainCode === "FORBIDDEN") throw notFound("work hour");
      throw error;
    }
  }
  assertMayManageProvider({ user: caller, membership }, input.provider_id);
  return { clinicId, providerId: input.provider_id };
}
