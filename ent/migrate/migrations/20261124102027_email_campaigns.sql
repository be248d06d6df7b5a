-- Campaigns (docs/campaigns.md): a message sent to many speakers of an event, and who it went to.
-- Create "email_campaigns" table
CREATE TABLE "email_campaigns" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "template_id" character varying NULL, "subject_snapshot" text NOT NULL, "body_snapshot" text NOT NULL, "recipient_filter" jsonb NOT NULL, "created_by_user_id" character varying NULL, "created_by_api_key_id" character varying NULL, "recipient_count" bigint NOT NULL DEFAULT 0, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "email_campaigns_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "emailcampaign_event_id_created_at" to table: "email_campaigns"
CREATE INDEX "emailcampaign_event_id_created_at" ON "email_campaigns" ("event_id", "created_at");
-- Create "email_campaign_recipients" table
CREATE TABLE "email_campaign_recipients" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "recipient_name" character varying NOT NULL, "recipient_email" character varying NOT NULL, "resolved_subject" text NOT NULL, "resolved_body" text NOT NULL, "campaign_id" character varying NOT NULL, "contact_id" character varying NULL, "email_log_id" character varying NULL, PRIMARY KEY ("id"), CONSTRAINT "email_campaign_recipients_contacts_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, CONSTRAINT "email_campaign_recipients_email_campaigns_recipients" FOREIGN KEY ("campaign_id") REFERENCES "email_campaigns" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "email_campaign_recipients_email_log_email" FOREIGN KEY ("email_log_id") REFERENCES "email_log" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- Create index "emailcampaignrecipient_campaign_id_recipient_email" to table: "email_campaign_recipients"
CREATE UNIQUE INDEX "emailcampaignrecipient_campaign_id_recipient_email" ON "email_campaign_recipients" ("campaign_id", "recipient_email");
-- Create index "emailcampaignrecipient_contact_id" to table: "email_campaign_recipients"
CREATE INDEX "emailcampaignrecipient_contact_id" ON "email_campaign_recipients" ("contact_id");
-- Create index "emailcampaignrecipient_email_log_id" to table: "email_campaign_recipients"
CREATE INDEX "emailcampaignrecipient_email_log_id" ON "email_campaign_recipients" ("email_log_id");

-- Row-level security, as on every tenant table (docs/tenancy.md). A campaign's organization is its
-- event's (the trigger fills and checks it, as for every table below an event); a recipient's is
-- filled by the application from the context and checked by the policies.
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "email_campaigns" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "email_campaigns" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "email_campaigns" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "email_campaigns" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "email_campaigns" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "email_campaign_recipients" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "email_campaign_recipients" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "email_campaign_recipients" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "email_campaign_recipients" USING ((SELECT current_setting('podium.system', true)) = 'on');
