// Messages to patients: planned with the change they tell of, rendered in the clinic's locale,
// sent over SMTP after the commit, listed by N1 (docs/messages.md).
export * from "./list.ts";
export * from "./render.ts";
export * from "./send.ts";
export * from "./transport.ts";
import { onEventsRecorded } from "../events/index.ts";
import { planMessages } from "./plan.ts";

onEventsRecorded(planMessages);
