-- Modify "submissions" table
ALTER TABLE "submissions" ADD COLUMN "programmed_as" character varying NULL;
