// Webhooks: subscriptions, signed deliveries with retries, outbound safety (docs/events.md#webhooks).
import { onEventsRecorded } from "../events/index.ts";
import { planDeliveries } from "./deliver.ts";

export * from "./deliver.ts";
export * from "./outbound.ts";
export * from "./webhooks.ts";

// Every recorded event gets its deliveries planned in its own transaction (docs/events.md#webhooks).
onEventsRecorded(planDeliveries);
