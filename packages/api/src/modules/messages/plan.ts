// Which changes send a message: planned in the transaction of the event that tells of them.
import { sql } from "drizzle-orm";
import type { Db } from "@clinic/db";
import type { RecordedEventsHandler } from "../events/index.ts";

/**
 * Plans the messages of events recorded in TypeScript (a staff cancel, a reminder): the same
 * database function the booking functions use (`clinic_plan_message` with the one mapping
 * `clinic_event_message_kind`), so a message exists exactly when its event does. Events that tell
 * no patient anything cost one statement, which plans nothing.
 */
export const planMessages: RecordedEventsHandler = async (tx: Db, clinicId, recorded) => {
  for (const event of recorded) {
    if (!event.type.startsWith("appointment.")) continue;
    const data = JSON.stringify(event.data);
    await tx.execute(
      sql`select clinic_plan_message(${clinicId}::uuid, clinic_event_message_kind(${event.type}, ${data}::jsonb), ${event.id}::uuid, ${data}::jsonb)`,
    );
  }
};
