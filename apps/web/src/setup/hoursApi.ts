// The work-hours routes of one owner (CONTRACT §5 W1–W8, K1–K6, §8 D1–D6) behind one shape, so the
// area's components do not ask "clinic or provider?" at every call.
import { client } from "../api.ts";
import type { Closure, DateOverride, HoursOwner, WorkHour } from "./hours.ts";

export interface Period {
  opens_at: string;
  closes_at: string;
}

export interface HoursApi {
  list: () => Promise<WorkHour[]>;
  create: (weekday: number, period: Period) => Promise<WorkHour>;
  edit: (hour: WorkHour, ifUpdatedAt: Date, period: Period) => Promise<WorkHour>;
  remove: (hour: WorkHour) => Promise<void>;
  overrides: (from: string) => Promise<DateOverride[]>;
  putOverride: (input: { date: string; periods: Period[]; reason?: string; if_updated_at?: Date }) => Promise<unknown>;
  removeOverride: (date: string) => Promise<void>;
  closures: (from: Date) => Promise<Closure[]>;
  createClosure: (input: { starts_at: Date; ends_at: Date; reason?: string }) => Promise<Closure>;
  removeClosure: (id: string) => Promise<void>;
}

export function hoursApi(clinicId: string, owner: HoursOwner): HoursApi {
  const clinic_id = clinicId;
  if (owner.kind === "clinic")
    return {
      list: async () => (await client.workHours.listClinic.query({ clinic_id })).work_hours,
      create: (weekday, p) => client.workHours.createClinic.mutate({ clinic_id, weekday, ...p }),
      edit: (hour, stamp, p) =>
        client.workHours.editClinic.mutate({ clinic_id, work_hour_id: hour.id, if_updated_at: stamp, ...p }),
      remove: (hour) => client.workHours.deleteClinic.mutate({ clinic_id, work_hour_id: hour.id }),
      overrides: async (from) => (await client.dateOverrides.listClinic.query({ clinic_id, from })).date_overrides,
      putOverride: (input) => client.dateOverrides.putClinic.mutate({ clinic_id, ...input }),
      removeOverride: (date) => client.dateOverrides.deleteClinic.mutate({ clinic_id, date }),
      closures: async (from) => (await client.closures.listClinic.query({ clinic_id, from })).closures,
      createClosure: (input) => client.closures.createClinic.mutate({ clinic_id, ...input }),
      removeClosure: (id) => client.closures.deleteClinic.mutate({ clinic_id, closure_id: id }),
    };
  const provider_id = owner.userId;
  return {
    list: async () => (await client.workHours.listProvider.query({ clinic_id, provider_id })).work_hours,
    create: (weekday, p) => client.workHours.createProvider.mutate({ clinic_id, provider_id, weekday, ...p }),
    edit: (hour, stamp, p) =>
      client.workHours.editProvider.mutate({
        clinic_id,
        provider_id,
        work_hour_id: hour.id,
        if_updated_at: stamp,
        ...p,
      }),
    remove: (hour) => client.workHours.deleteProvider.mutate({ clinic_id, provider_id, work_hour_id: hour.id }),
    overrides: async (from) =>
      (await client.dateOverrides.listProvider.query({ clinic_id, provider_id, from })).date_overrides,
    putOverride: (input) => client.dateOverrides.putProvider.mutate({ clinic_id, provider_id, ...input }),
    removeOverride: (date) => client.dateOverrides.deleteProvider.mutate({ clinic_id, provider_id, date }),
    closures: async (from) => (await client.closures.listProvider.query({ clinic_id, provider_id, from })).closures,
    createClosure: (input) => client.closures.createProvider.mutate({ clinic_id, provider_id, ...input }),
    removeClosure: (id) => client.closures.deleteProvider.mutate({ clinic_id, provider_id, closure_id: id }),
  };
}
