-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "speaker_content_locked" boolean NOT NULL DEFAULT false;
