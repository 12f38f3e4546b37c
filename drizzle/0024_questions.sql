-- Booking questions (CONTRACT §19, issue 39, docs/questions.md): what a service asks when it is
-- booked, the answers kept with each appointment as they were asked, and a webhook's opt-in to them.
ALTER TABLE "appointments" ADD COLUMN "answers" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "questions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "include_answers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_answers_list" CHECK (jsonb_typeof("answers") = 'array');--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_questions_list" CHECK (jsonb_typeof("questions") = 'array' and jsonb_array_length("questions") <= 30);