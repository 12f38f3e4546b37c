-- v1.3 finish (issue 36). One rendering of an event (docs/events.md#one-rendering): a webhook delivery no longer keeps a copy
-- of its event. The copy was rendered in SQL (occurred_at truncated to the millisecond by to_char,
-- keys in jsonb's order) and in TypeScript, while the event's row rounds the same now() to the
-- millisecond: a delivery and E1 could show the same event with different bytes. A delivery of a
-- recorded event is now rendered from the event's row when it is sent; `data` keeps only the data of
-- an event that is not in the feed (webhook.test).
-- The functions that write deliveries (clinic_record_event) live in drizzle/functions/ like every
-- function from here on (docs/database-functions.md).
ALTER TABLE "webhook_deliveries" RENAME COLUMN "payload" TO "data";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "data" DROP NOT NULL;
--> statement-breakpoint
UPDATE "webhook_deliveries" d SET "data" = CASE
  WHEN EXISTS (SELECT 1 FROM "events" e WHERE e.clinic_id = d.clinic_id AND e.id = d.event_id) THEN NULL
  ELSE d."data"->'data' END;
