-- Modify "forms" table: existing forms offer everything and ask nothing more.
ALTER TABLE "forms" ADD COLUMN "opens_at" timestamptz NULL, ADD COLUMN "track_ids" jsonb NOT NULL DEFAULT '[]', ADD COLUMN "format_ids" jsonb NOT NULL DEFAULT '[]', ADD COLUMN "level_ids" jsonb NOT NULL DEFAULT '[]', ADD COLUMN "questions" jsonb NOT NULL DEFAULT '[]';
-- Modify "submissions" table: a form with submissions can no longer be deleted (it used to leave
-- them without a source, reading as manual sessions); deleting the event still removes both.
ALTER TABLE "submissions" DROP CONSTRAINT "submissions_forms_submissions", ADD COLUMN "proposal_key" character varying NULL, ADD CONSTRAINT "submissions_forms_submissions" FOREIGN KEY ("source_form_id") REFERENCES "forms" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- Create index "submission_event_id_proposal_key" to table: "submissions"
CREATE UNIQUE INDEX "submission_event_id_proposal_key" ON "submissions" ("event_id", "proposal_key");
