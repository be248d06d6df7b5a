-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "chasers" jsonb NOT NULL DEFAULT '{}';
