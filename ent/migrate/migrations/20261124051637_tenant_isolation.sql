-- Tenant isolation, enforced by PostgreSQL as well as by the code (docs/tenancy.md).
--
-- 1. Every table below an event (or below a submission, a review round, an API key) gets a copy of
--    its parent's organization_id, filled for the rows already there and, for new rows, by a
--    trigger that reads the parent — so policies test one column instead of walking to the event.
-- 2. The role podium_app: what Podium's connections act as (SET ROLE, see package dbx). It owns
--    nothing, cannot bypass row-level security and is no superuser, so the policies bind it.
-- 3. Row-level security on every tenant table, forced (it binds the tables' owner too), admitting
--    the rows of the organization in podium.org_id, or every row when podium.system is on.

-- 1. organization_id on the tables below events, filled from their parents.
ALTER TABLE "contacts" ADD COLUMN "organization_id" character varying;
UPDATE "contacts" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "contacts" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "event_members" ADD COLUMN "organization_id" character varying;
UPDATE "event_members" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "event_members" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "tracks" ADD COLUMN "organization_id" character varying;
UPDATE "tracks" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "tracks" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "formats" ADD COLUMN "organization_id" character varying;
UPDATE "formats" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "formats" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "rooms" ADD COLUMN "organization_id" character varying;
UPDATE "rooms" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "rooms" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "tags" ADD COLUMN "organization_id" character varying;
UPDATE "tags" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "tags" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "levels" ADD COLUMN "organization_id" character varying;
UPDATE "levels" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "levels" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "task_templates" ADD COLUMN "organization_id" character varying;
UPDATE "task_templates" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "task_templates" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "file_requirements" ADD COLUMN "organization_id" character varying;
UPDATE "file_requirements" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "file_requirements" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "resources" ADD COLUMN "organization_id" character varying;
UPDATE "resources" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "resources" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "email_log" ADD COLUMN "organization_id" character varying;
UPDATE "email_log" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "email_log" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "review_rounds" ADD COLUMN "organization_id" character varying;
UPDATE "review_rounds" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "review_rounds" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "forms" ADD COLUMN "organization_id" character varying;
UPDATE "forms" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "forms" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "submissions" ADD COLUMN "organization_id" character varying;
UPDATE "submissions" c SET "organization_id" = p."organization_id" FROM "events" p WHERE p."id" = c."event_id";
ALTER TABLE "submissions" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "review_criteria" ADD COLUMN "organization_id" character varying;
UPDATE "review_criteria" c SET "organization_id" = p."organization_id" FROM "review_rounds" p WHERE p."id" = c."round_id";
ALTER TABLE "review_criteria" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "review_round_members" ADD COLUMN "organization_id" character varying;
UPDATE "review_round_members" c SET "organization_id" = p."organization_id" FROM "review_rounds" p WHERE p."id" = c."round_id";
ALTER TABLE "review_round_members" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "review_assignments" ADD COLUMN "organization_id" character varying;
UPDATE "review_assignments" c SET "organization_id" = p."organization_id" FROM "review_rounds" p WHERE p."id" = c."round_id";
ALTER TABLE "review_assignments" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "ai_review_results" ADD COLUMN "organization_id" character varying;
UPDATE "ai_review_results" c SET "organization_id" = p."organization_id" FROM "review_rounds" p WHERE p."id" = c."round_id";
ALTER TABLE "ai_review_results" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "review_answers" ADD COLUMN "organization_id" character varying;
UPDATE "review_answers" c SET "organization_id" = p."organization_id" FROM "review_assignments" p WHERE p."id" = c."assignment_id";
ALTER TABLE "review_answers" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "task_assignments" ADD COLUMN "organization_id" character varying;
UPDATE "task_assignments" c SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = c."submission_id";
ALTER TABLE "task_assignments" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "deliverable_assignments" ADD COLUMN "organization_id" character varying;
UPDATE "deliverable_assignments" c SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = c."submission_id";
ALTER TABLE "deliverable_assignments" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "submission_participants" ADD COLUMN "organization_id" character varying;
UPDATE "submission_participants" c SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = c."submission_id";
ALTER TABLE "submission_participants" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "timeline_entries" ADD COLUMN "organization_id" character varying;
UPDATE "timeline_entries" c SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = c."submission_id";
ALTER TABLE "timeline_entries" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "idempotency_records" ADD COLUMN "organization_id" character varying;
UPDATE "idempotency_records" c SET "organization_id" = p."organization_id" FROM "api_keys" p WHERE p."id" = c."api_key_id";
ALTER TABLE "idempotency_records" ALTER COLUMN "organization_id" SET NOT NULL;

-- A new row's organization is its parent's. The trigger looks the parent up as system work (the
-- parent may be invisible to the inserting session), fills organization_id when the INSERT leaves
-- it out (hand-written SQL), and refuses one that names another organization. A parent that does
-- not exist is left to the foreign key to report, as before. The policies' WITH CHECK then refuses
-- a row outside the session's organization: a child of another organization's parent.
CREATE FUNCTION "podium_organization_from_event"() RETURNS trigger LANGUAGE plpgsql
SET podium.system = 'on' AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "events" WHERE "id" = NEW."event_id";
  IF NOT FOUND THEN
    -- No such parent (the foreign key reports it), or one this same statement inserts, which
    -- the statement's snapshot does not show: the row is the session's organization's.
    NEW."organization_id" := COALESCE(NEW."organization_id", NULLIF(current_setting('podium.org_id', true), ''));
    IF NEW."organization_id" IS NULL THEN
      RAISE EXCEPTION 'podium: the organization of a new % row is unknown: set organization_id', TG_TABLE_NAME
        USING ERRCODE = 'not_null_violation';
    END IF;
  ELSIF NEW."organization_id" IS NULL THEN
    NEW."organization_id" := parent_org;
  ELSIF NEW."organization_id" <> parent_org THEN
    RAISE EXCEPTION 'podium: a % row of organization % under % % of organization %',
      TG_TABLE_NAME, NEW."organization_id", 'events', NEW."event_id", parent_org
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "contacts" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "event_members" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "tracks" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "formats" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "rooms" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "tags" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "levels" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "task_templates" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "file_requirements" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "resources" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "email_log" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "review_rounds" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "forms" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "submissions" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
CREATE FUNCTION "podium_organization_from_review_round"() RETURNS trigger LANGUAGE plpgsql
SET podium.system = 'on' AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "review_rounds" WHERE "id" = NEW."round_id";
  IF NOT FOUND THEN
    -- No such parent (the foreign key reports it), or one this same statement inserts, which
    -- the statement's snapshot does not show: the row is the session's organization's.
    NEW."organization_id" := COALESCE(NEW."organization_id", NULLIF(current_setting('podium.org_id', true), ''));
    IF NEW."organization_id" IS NULL THEN
      RAISE EXCEPTION 'podium: the organization of a new % row is unknown: set organization_id', TG_TABLE_NAME
        USING ERRCODE = 'not_null_violation';
    END IF;
  ELSIF NEW."organization_id" IS NULL THEN
    NEW."organization_id" := parent_org;
  ELSIF NEW."organization_id" <> parent_org THEN
    RAISE EXCEPTION 'podium: a % row of organization % under % % of organization %',
      TG_TABLE_NAME, NEW."organization_id", 'review_rounds', NEW."round_id", parent_org
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "review_criteria" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_review_round"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "review_round_members" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_review_round"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "review_assignments" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_review_round"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "ai_review_results" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_review_round"();
CREATE FUNCTION "podium_organization_from_review_assignment"() RETURNS trigger LANGUAGE plpgsql
SET podium.system = 'on' AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "review_assignments" WHERE "id" = NEW."assignment_id";
  IF NOT FOUND THEN
    -- No such parent (the foreign key reports it), or one this same statement inserts, which
    -- the statement's snapshot does not show: the row is the session's organization's.
    NEW."organization_id" := COALESCE(NEW."organization_id", NULLIF(current_setting('podium.org_id', true), ''));
    IF NEW."organization_id" IS NULL THEN
      RAISE EXCEPTION 'podium: the organization of a new % row is unknown: set organization_id', TG_TABLE_NAME
        USING ERRCODE = 'not_null_violation';
    END IF;
  ELSIF NEW."organization_id" IS NULL THEN
    NEW."organization_id" := parent_org;
  ELSIF NEW."organization_id" <> parent_org THEN
    RAISE EXCEPTION 'podium: a % row of organization % under % % of organization %',
      TG_TABLE_NAME, NEW."organization_id", 'review_assignments', NEW."assignment_id", parent_org
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "review_answers" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_review_assignment"();
CREATE FUNCTION "podium_organization_from_submission"() RETURNS trigger LANGUAGE plpgsql
SET podium.system = 'on' AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "submissions" WHERE "id" = NEW."submission_id";
  IF NOT FOUND THEN
    -- No such parent (the foreign key reports it), or one this same statement inserts, which
    -- the statement's snapshot does not show: the row is the session's organization's.
    NEW."organization_id" := COALESCE(NEW."organization_id", NULLIF(current_setting('podium.org_id', true), ''));
    IF NEW."organization_id" IS NULL THEN
      RAISE EXCEPTION 'podium: the organization of a new % row is unknown: set organization_id', TG_TABLE_NAME
        USING ERRCODE = 'not_null_violation';
    END IF;
  ELSIF NEW."organization_id" IS NULL THEN
    NEW."organization_id" := parent_org;
  ELSIF NEW."organization_id" <> parent_org THEN
    RAISE EXCEPTION 'podium: a % row of organization % under % % of organization %',
      TG_TABLE_NAME, NEW."organization_id", 'submissions', NEW."submission_id", parent_org
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "task_assignments" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "deliverable_assignments" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "submission_participants" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "timeline_entries" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE FUNCTION "podium_organization_from_api_key"() RETURNS trigger LANGUAGE plpgsql
SET podium.system = 'on' AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "api_keys" WHERE "id" = NEW."api_key_id";
  IF NOT FOUND THEN
    -- No such parent (the foreign key reports it), or one this same statement inserts, which
    -- the statement's snapshot does not show: the row is the session's organization's.
    NEW."organization_id" := COALESCE(NEW."organization_id", NULLIF(current_setting('podium.org_id', true), ''));
    IF NEW."organization_id" IS NULL THEN
      RAISE EXCEPTION 'podium: the organization of a new % row is unknown: set organization_id', TG_TABLE_NAME
        USING ERRCODE = 'not_null_violation';
    END IF;
  ELSIF NEW."organization_id" IS NULL THEN
    NEW."organization_id" := parent_org;
  ELSIF NEW."organization_id" <> parent_org THEN
    RAISE EXCEPTION 'podium: a % row of organization % under % % of organization %',
      TG_TABLE_NAME, NEW."organization_id", 'api_keys', NEW."api_key_id", parent_org
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "idempotency_records" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_api_key"();

-- 2. The application role, shared by every database of the cluster. Databases migrated at the same
-- moment (tests) race to create it: the loser's error is swallowed.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'podium_app') THEN
    BEGIN
      CREATE ROLE podium_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
  -- A login role that is not a superuser must be a member to SET ROLE podium_app.
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
     AND NOT pg_has_role(current_user, 'podium_app', 'MEMBER') THEN
    EXECUTE format('GRANT podium_app TO %I', current_user);
  END IF;
END
$$;
GRANT USAGE ON SCHEMA public TO podium_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO podium_app;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO podium_app;
-- Tables created later by the role running migrations (River's, Podium's next ones) too.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO podium_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO podium_app;
-- Migrations are the owner's business (the table is missing where atlas replays these files).
DO $$
BEGIN
  IF to_regclass('podium_schema_migrations') IS NOT NULL THEN
    REVOKE INSERT, UPDATE, DELETE ON "podium_schema_migrations" FROM podium_app;
  END IF;
END
$$;

-- 3. Row-level security. Two permissive policies per table, either of which admits a row:
-- podium_tenant for the session's organization, podium_system for system work. Both apply to reads
-- (USING) and to the rows an INSERT or UPDATE writes (WITH CHECK, the same expression). The
-- settings are read once per statement (the sub-SELECTs become init plans), and an unset
-- podium.org_id is NULL, which matches no row.
ALTER TABLE "organizations" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organizations" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organizations" USING ("id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organizations" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "events" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "events" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "events" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_members" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_members" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_members" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_members" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "organization_invitations" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "organization_invitations" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "organization_invitations" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "organization_invitations" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "api_keys" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "api_keys" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "api_keys" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "api_keys" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "contacts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "contacts" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "contacts" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "contacts" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "event_members" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "event_members" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "event_members" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "event_members" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "tracks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "tracks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "tracks" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "tracks" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "formats" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "formats" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "formats" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "formats" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "rooms" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "rooms" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "rooms" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "rooms" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "tags" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "tags" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "tags" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "tags" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "levels" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "levels" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "levels" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "levels" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "task_templates" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "task_templates" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "task_templates" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "task_templates" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "file_requirements" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "file_requirements" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "file_requirements" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "file_requirements" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "resources" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "resources" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "resources" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "resources" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "email_log" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "email_log" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "email_log" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "email_log" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "review_rounds" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_rounds" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "review_rounds" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "review_rounds" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "forms" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "forms" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "forms" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "forms" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "submissions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "submissions" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "submissions" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "submissions" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "review_criteria" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_criteria" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "review_criteria" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "review_criteria" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "review_round_members" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_round_members" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "review_round_members" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "review_round_members" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "review_assignments" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_assignments" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "review_assignments" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "review_assignments" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "ai_review_results" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "ai_review_results" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "ai_review_results" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "ai_review_results" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "review_answers" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_answers" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "review_answers" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "review_answers" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "task_assignments" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "task_assignments" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "task_assignments" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "task_assignments" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "deliverable_assignments" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "deliverable_assignments" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "deliverable_assignments" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "deliverable_assignments" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "submission_participants" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "submission_participants" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "submission_participants" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "submission_participants" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "timeline_entries" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "timeline_entries" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "timeline_entries" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "timeline_entries" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "idempotency_records" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "idempotency_records" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "idempotency_records" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "idempotency_records" USING ((SELECT current_setting('podium.system', true)) = 'on');
-- Link tables of many-to-many edges hold no organization of their own: a link is visible when its
-- first side is (the parent's policies, system included, apply inside the EXISTS). A new link must
-- join two visible rows; that is checked after the statement's rows are in, so that one statement
-- may insert rows and link them.
CREATE FUNCTION "podium_check_link"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  visible boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT FROM %I WHERE id = $1) AND EXISTS (SELECT FROM %I WHERE id = $2)',
      TG_ARGV[1], TG_ARGV[3])
    INTO visible USING to_jsonb(NEW) ->> TG_ARGV[0], to_jsonb(NEW) ->> TG_ARGV[2];
  IF NOT visible THEN
    RAISE EXCEPTION 'podium: a % row links rows outside the current organization', TG_TABLE_NAME
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NULL;
END
$$;
ALTER TABLE "event_member_tracks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "event_member_tracks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "event_member_tracks" USING (EXISTS (SELECT FROM "event_members" p WHERE p."id" = "event_member_tracks"."event_member_id"))
  WITH CHECK (true);
CREATE TRIGGER "podium_check_link" AFTER INSERT OR UPDATE ON "event_member_tracks" FOR EACH ROW
  EXECUTE FUNCTION "podium_check_link"('event_member_id', 'event_members', 'track_id', 'tracks');
ALTER TABLE "resource_tracks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "resource_tracks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "resource_tracks" USING (EXISTS (SELECT FROM "resources" p WHERE p."id" = "resource_tracks"."resource_id"))
  WITH CHECK (true);
CREATE TRIGGER "podium_check_link" AFTER INSERT OR UPDATE ON "resource_tracks" FOR EACH ROW
  EXECUTE FUNCTION "podium_check_link"('resource_id', 'resources', 'track_id', 'tracks');
ALTER TABLE "resource_contacts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "resource_contacts" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "resource_contacts" USING (EXISTS (SELECT FROM "resources" p WHERE p."id" = "resource_contacts"."resource_id"))
  WITH CHECK (true);
CREATE TRIGGER "podium_check_link" AFTER INSERT OR UPDATE ON "resource_contacts" FOR EACH ROW
  EXECUTE FUNCTION "podium_check_link"('resource_id', 'resources', 'contact_id', 'contacts');
ALTER TABLE "submission_tracks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "submission_tracks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "submission_tracks" USING (EXISTS (SELECT FROM "submissions" p WHERE p."id" = "submission_tracks"."submission_id"))
  WITH CHECK (true);
CREATE TRIGGER "podium_check_link" AFTER INSERT OR UPDATE ON "submission_tracks" FOR EACH ROW
  EXECUTE FUNCTION "podium_check_link"('submission_id', 'submissions', 'track_id', 'tracks');
ALTER TABLE "submission_tags" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "submission_tags" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "submission_tags" USING (EXISTS (SELECT FROM "submissions" p WHERE p."id" = "submission_tags"."submission_id"))
  WITH CHECK (true);
CREATE TRIGGER "podium_check_link" AFTER INSERT OR UPDATE ON "submission_tags" FOR EACH ROW
  EXECUTE FUNCTION "podium_check_link"('submission_id', 'submissions', 'tag_id', 'tags');
