-- The organization's contact book (docs/crm.md): contacts, tags, notes, links to event contacts,
-- the pipeline and saved segments.
-- Create "crm_pipeline_stages" table
CREATE TABLE "crm_pipeline_stages" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "name" character varying NOT NULL, "semantic_status" character varying NOT NULL, "position" bigint NOT NULL, PRIMARY KEY ("id"));
-- Create index "pipelinestage_organization_id_name" to table: "crm_pipeline_stages"
CREATE UNIQUE INDEX "pipelinestage_organization_id_name" ON "crm_pipeline_stages" ("organization_id", "name");
-- Create index "pipelinestage_organization_id_position" to table: "crm_pipeline_stages"
CREATE INDEX "pipelinestage_organization_id_position" ON "crm_pipeline_stages" ("organization_id", "position");
-- Create "crm_segments" table
CREATE TABLE "crm_segments" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "name" character varying NOT NULL, "filter" jsonb NOT NULL, PRIMARY KEY ("id"));
-- Create index "segment_organization_id_name" to table: "crm_segments"
CREATE UNIQUE INDEX "segment_organization_id_name" ON "crm_segments" ("organization_id", "name");
-- Create "organization_contacts" table
CREATE TABLE "organization_contacts" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "first_name" character varying NOT NULL, "last_name" character varying NOT NULL, "email" character varying NOT NULL, "title" text NULL, "company" text NULL, "bio" text NULL, "linkedin_url" text NULL, "twitter_url" text NULL, "facebook_url" text NULL, "website_url" text NULL, "headshot_url" text NULL, "custom" jsonb NOT NULL, PRIMARY KEY ("id"));
-- Create index "organizationcontact_organization_id_email" to table: "organization_contacts"
CREATE UNIQUE INDEX "organizationcontact_organization_id_email" ON "organization_contacts" ("organization_id", "email");
-- Create index "organizationcontact_organization_id_last_name_first_name" to table: "organization_contacts"
CREATE INDEX "organizationcontact_organization_id_last_name_first_name" ON "organization_contacts" ("organization_id", "last_name", "first_name");
-- Create "crm_pipeline_cards" table
CREATE TABLE "crm_pipeline_cards" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "owner_user_id" character varying NULL, "note" text NULL, "organization_contact_id" character varying NOT NULL, "stage_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "crm_pipeline_cards_crm_pipeline_stages_cards" FOREIGN KEY ("stage_id") REFERENCES "crm_pipeline_stages" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "crm_pipeline_cards_organization_contacts_card" FOREIGN KEY ("organization_contact_id") REFERENCES "organization_contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "crm_pipeline_cards_organization_contact_id_key" to table: "crm_pipeline_cards"
CREATE UNIQUE INDEX "crm_pipeline_cards_organization_contact_id_key" ON "crm_pipeline_cards" ("organization_contact_id");
-- Create index "pipelinecard_stage_id" to table: "crm_pipeline_cards"
CREATE INDEX "pipelinecard_stage_id" ON "crm_pipeline_cards" ("stage_id");
-- Create "crm_stage_history" table
CREATE TABLE "crm_stage_history" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "from_stage_id" character varying NULL, "from_stage_name" character varying NULL, "to_stage_id" character varying NULL, "to_stage_name" character varying NOT NULL, "actor_user_id" character varying NULL, "actor_api_key_id" character varying NULL, "actor_name" character varying NOT NULL DEFAULT '', "card_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "crm_stage_history_crm_pipeline_cards_history" FOREIGN KEY ("card_id") REFERENCES "crm_pipeline_cards" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "stagehistory_card_id_created_at" to table: "crm_stage_history"
CREATE INDEX "stagehistory_card_id_created_at" ON "crm_stage_history" ("card_id", "created_at");
-- Create "organization_contact_events" table
CREATE TABLE "organization_contact_events" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "role" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'invited', "organization_contact_id" character varying NOT NULL, "contact_id" character varying NOT NULL, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "organization_contact_events_contacts_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "organization_contact_events_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "organization_contact_events_organization_contacts_event_links" FOREIGN KEY ("organization_contact_id") REFERENCES "organization_contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "organizationcontactevent_contact_id" to table: "organization_contact_events"
CREATE INDEX "organizationcontactevent_contact_id" ON "organization_contact_events" ("contact_id");
-- Create index "organizationcontactevent_event_id" to table: "organization_contact_events"
CREATE INDEX "organizationcontactevent_event_id" ON "organization_contact_events" ("event_id");
-- Create index "organizationcontactevent_organization_contact_id_event_id" to table: "organization_contact_events"
CREATE UNIQUE INDEX "organizationcontactevent_organization_contact_id_event_id" ON "organization_contact_events" ("organization_contact_id", "event_id");
-- Create "organization_contact_notes" table
CREATE TABLE "organization_contact_notes" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "body" text NOT NULL, "author_user_id" character varying NULL, "author_api_key_id" character varying NULL, "author_name" character varying NOT NULL DEFAULT '', "organization_contact_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "organization_contact_notes_organization_contacts_notes" FOREIGN KEY ("organization_contact_id") REFERENCES "organization_contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "organizationcontactnote_organization_contact_id_created_at" to table: "organization_contact_notes"
CREATE INDEX "organizationcontactnote_organization_contact_id_created_at" ON "organization_contact_notes" ("organization_contact_id", "created_at");
-- Create "organization_tags" table
CREATE TABLE "organization_tags" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "name" character varying NOT NULL, PRIMARY KEY ("id"));
-- Create index "organizationtag_organization_id_name" to table: "organization_tags"
CREATE UNIQUE INDEX "organizationtag_organization_id_name" ON "organization_tags" ("organization_id", "name");
-- Create "organization_contact_tags" table
CREATE TABLE "organization_contact_tags" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "organization_contact_id" character varying NOT NULL, "tag_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "organization_contact_tags_organization_contacts_tag_links" FOREIGN KEY ("organization_contact_id") REFERENCES "organization_contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "organization_contact_tags_organization_tags_contact_links" FOREIGN KEY ("tag_id") REFERENCES "organization_tags" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "organizationcontacttag_organization_contact_id_tag_id" to table: "organization_contact_tags"
CREATE UNIQUE INDEX "organizationcontacttag_organization_contact_id_tag_id" ON "organization_contact_tags" ("organization_contact_id", "tag_id");
-- Create index "organizationcontacttag_tag_id" to table: "organization_contact_tags"
CREATE INDEX "organizationcontacttag_tag_id" ON "organization_contact_tags" ("tag_id");

-- Row-level security, as on every tenant table (docs/tenancy.md). organization_id is filled by
-- the application from the context (the tenant filter), and the policies check it.
ALTER TABLE "organization_contacts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_contacts" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_contacts" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_contacts" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_tags" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_tags" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_tags" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_tags" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_contact_tags" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_contact_tags" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_contact_tags" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_contact_tags" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_contact_notes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_contact_notes" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_contact_notes" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_contact_notes" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_contact_events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_contact_events" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_contact_events" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_contact_events" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "crm_pipeline_stages" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "crm_pipeline_stages" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "crm_pipeline_stages" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "crm_pipeline_stages" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "crm_pipeline_cards" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "crm_pipeline_cards" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "crm_pipeline_cards" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "crm_pipeline_cards" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "crm_stage_history" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "crm_stage_history" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "crm_stage_history" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "crm_stage_history" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "crm_segments" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "crm_segments" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "crm_segments" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "crm_segments" USING ((SELECT current_setting('podium.system', true)) = 'on');
