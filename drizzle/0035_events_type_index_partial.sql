-- The events' type index leaves out appointment.booked, the type every booking writes (issue 49:
-- one B-tree entry, about 88 bytes of WAL, less a booking; docs/events.md#what-an-event-stores).
-- E1's types filter reads it when it asks for no booked events (listEvents adds the index's
-- predicate), the waitlist matcher for waitlist.offered; a filter with appointment.booked reads
-- events_pkey in feed order.
DROP INDEX "events_clinic_type_seq_idx";--> statement-breakpoint
CREATE INDEX "events_clinic_type_seq_idx" ON "events" USING btree ("clinic_id","type","seq") WHERE "events"."type" <> 'appointment.booked';