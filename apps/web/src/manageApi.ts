// The manage-link routes (§15 L1–L5) as the manage page uses them.
import type { RouterOutputs } from "@clinic/client";
import { client } from "./api.ts";

export type ManageView = RouterOutputs["manage"]["get"];
export type ManagedAppointment = ManageView["appointment"];

export const manageApi = {
  get: (token: string): Promise<ManageView> => client.manage.get.query({ token }),
  confirm: (token: string): Promise<ManagedAppointment> => client.manage.confirm.mutate({ token }),
  cancel: (token: string): Promise<ManagedAppointment> => client.manage.cancel.mutate({ token }),
  reschedule: (token: string, start: Date): Promise<ManagedAppointment> =>
    client.manage.reschedule.mutate({ token, start }),
  decline: (token: string): Promise<unknown> => client.manage.decline.mutate({ token }),
};
