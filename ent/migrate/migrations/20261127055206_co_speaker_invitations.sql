-- Modify "submissions" table
ALTER TABLE "submissions" ADD COLUMN "co_speaker_invitations" jsonb NOT NULL DEFAULT '[]';
