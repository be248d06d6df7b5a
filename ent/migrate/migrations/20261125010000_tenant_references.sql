-- One row-level security shape for every tenant table, references that stay inside their
-- organization, and system scope as a role instead of a setting (docs/tenancy.md).
--
-- 1. Link tables of many-to-many edges get organization_id, filled from their first side, so that
--    their policy compares a column like every other table's instead of running a subquery per row.
-- 2. Every foreign key from a tenant table to a tenant table gets a composite partner,
--    (organization_id, column) REFERENCES parent (organization_id, id): a row can only point at a
--    row of its own organization, on INSERT and on UPDATE, at the cost of an index probe.
-- 3. System scope is the role podium_system, which the policies name (TO podium_system). The
--    setting podium.system no longer admits anything, so a session may set it to no effect.
-- 4. Podium's ordinary connections log in as an application login role of this database (a member
--    of podium_app), so that SET ROLE and RESET ROLE cannot leave the application's rights. Its
--    name and password are in podium_app_login, which only the owner can read.

-- 1. organization_id on the link tables, filled from the first side.
ALTER TABLE "submission_tracks" ADD COLUMN "organization_id" character varying;
UPDATE "submission_tracks" l SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = l."submission_id";
ALTER TABLE "submission_tracks" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "submission_tags" ADD COLUMN "organization_id" character varying;
UPDATE "submission_tags" l SET "organization_id" = p."organization_id" FROM "submissions" p WHERE p."id" = l."submission_id";
ALTER TABLE "submission_tags" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "resource_tracks" ADD COLUMN "organization_id" character varying;
UPDATE "resource_tracks" l SET "organization_id" = p."organization_id" FROM "resources" p WHERE p."id" = l."resource_id";
ALTER TABLE "resource_tracks" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "resource_contacts" ADD COLUMN "organization_id" character varying;
UPDATE "resource_contacts" l SET "organization_id" = p."organization_id" FROM "resources" p WHERE p."id" = l."resource_id";
ALTER TABLE "resource_contacts" ALTER COLUMN "organization_id" SET NOT NULL;
ALTER TABLE "event_member_tracks" ADD COLUMN "organization_id" character varying;
UPDATE "event_member_tracks" l SET "organization_id" = p."organization_id" FROM "event_members" p WHERE p."id" = l."event_member_id";
ALTER TABLE "event_member_tracks" ALTER COLUMN "organization_id" SET NOT NULL;

-- The links' visibility and their check move to the column and the composite foreign keys below.
DROP TRIGGER "podium_check_link" ON "submission_tracks";
DROP TRIGGER "podium_check_link" ON "submission_tags";
DROP TRIGGER "podium_check_link" ON "resource_tracks";
DROP TRIGGER "podium_check_link" ON "resource_contacts";
DROP TRIGGER "podium_check_link" ON "event_member_tracks";
DROP FUNCTION "podium_check_link"();

-- A new link's organization is its first side's; submissions' comes from the existing function.
CREATE FUNCTION "podium_organization_from_resource"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "resources" WHERE "id" = NEW."resource_id";
  NEW."organization_id" := COALESCE(NEW."organization_id", parent_org, NULLIF(current_setting('podium.org_id', true), ''));
  RETURN NEW;
END
$$;
CREATE FUNCTION "podium_organization_from_event_member"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent_org text;
BEGIN
  SELECT "organization_id" INTO parent_org FROM "event_members" WHERE "id" = NEW."event_member_id";
  NEW."organization_id" := COALESCE(NEW."organization_id", parent_org, NULLIF(current_setting('podium.org_id', true), ''));
  RETURN NEW;
END
$$;
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "submission_tracks" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "submission_tags" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_submission"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "resource_tracks" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_resource"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "resource_contacts" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_resource"();
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "event_member_tracks" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event_member"();

-- The functions that look a parent up across organizations run as their owner, the migrating
-- role, which is a member of podium_system (or a superuser): the setting they used to turn on no
-- longer admits anything. search_path is pinned, as for any SECURITY DEFINER function.
DO $$
DECLARE
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['podium_organization_from_event', 'podium_organization_from_review_round',
      'podium_organization_from_review_assignment', 'podium_organization_from_submission',
      'podium_organization_from_api_key', 'podium_organization_from_resource',
      'podium_organization_from_event_member']
  LOOP
    EXECUTE format('ALTER FUNCTION %I() SECURITY DEFINER RESET ALL', f);
    EXECUTE format('ALTER FUNCTION %I() SET search_path = %I, pg_temp', f, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %I() FROM PUBLIC', f);
  END LOOP;
END
$$;
ALTER FUNCTION "podium_api_key"(text) SECURITY DEFINER RESET ALL;
DO $$ BEGIN EXECUTE format('ALTER FUNCTION "podium_api_key"(text) SET search_path = %I, pg_temp', current_schema()); END $$;
REVOKE ALL ON FUNCTION "podium_api_key"(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;

-- 2. Same-organization references. podium_tenant_references() gives every single-column foreign
-- key between two tables with organization_id (other than organization_id itself) a composite
-- partner named podium_org_<constraint>, on a unique (organization_id, id) index of the parent named
-- podium_org_<table>, with the same ON DELETE action (SET NULL clears only the reference). The
-- original key stays: ent/schema declares it, and `make migration` compares with that
-- (migrations.Diff leaves podium_org_* objects alone). A later migration that adds tenant tables
-- calls the function again; ent/dbx's TestTenantReferences fails until it does.
CREATE FUNCTION "podium_tenant_references"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  fk record;
  added integer := 0;
BEGIN
  FOR fk IN
    SELECT c.conname, c.conrelid::regclass AS child, c.confrelid::regclass AS parent, p.relname AS parent_name,
           a.attname AS col, pa.attname AS parent_col, c.confdeltype AS on_delete, c.confupdtype AS on_update
    FROM pg_constraint c
    JOIN pg_class p ON p.oid = c.confrelid
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
    JOIN pg_attribute co ON co.attrelid = c.conrelid AND co.attname = 'organization_id' AND NOT co.attisdropped
    JOIN pg_attribute po ON po.attrelid = c.confrelid AND po.attname = 'organization_id' AND NOT po.attisdropped
    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      AND cardinality(c.conkey) = 1 AND a.attname <> 'organization_id'
      AND NOT EXISTS (SELECT FROM pg_constraint d WHERE d.conrelid = c.conrelid AND d.contype = 'f'
                      AND d.confrelid = c.confrelid AND d.conkey = ARRAY[co.attnum, a.attnum])
    ORDER BY 2, 1
  LOOP
    EXECUTE format('CREATE UNIQUE INDEX IF NOT EXISTS %I ON %s ("organization_id", %I)',
      left('podium_org_' || fk.parent_name, 63), fk.parent, fk.parent_col);
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I FOREIGN KEY ("organization_id", %I) REFERENCES %s ("organization_id", %I) ON UPDATE %s ON DELETE %s',
      fk.child, left('podium_org_' || fk.conname, 63), fk.col, fk.parent, fk.parent_col,
      CASE fk.on_update WHEN 'c' THEN 'CASCADE' WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END,
      CASE fk.on_delete WHEN 'c' THEN 'CASCADE' WHEN 'r' THEN 'RESTRICT'
        WHEN 'n' THEN format('SET NULL (%I)', fk.col) WHEN 'd' THEN format('SET DEFAULT (%I)', fk.col) ELSE 'NO ACTION' END);
    added := added + 1;
  END LOOP;
  RETURN added;
END
$$;
SELECT "podium_tenant_references"();

-- 3. System scope: the role podium_system, shared by the cluster's databases like podium_app. It
-- has podium_app's rights (tables, River's) and, through the policies below, every row. The
-- migrating role becomes a member so that Podium's system pool can SET ROLE to it and the functions
-- above (SECURITY DEFINER) see every row. Databases migrated at once (tests) race on the catalog:
-- the loser's error is swallowed and the step retried.
DO $$
DECLARE
  attempt integer;
BEGIN
  FOR attempt IN 1..5 LOOP
    BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'podium_system') THEN
        CREATE ROLE podium_system NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE INHERIT;
      END IF;
      IF NOT pg_has_role('podium_system', 'podium_app', 'MEMBER') THEN
        GRANT podium_app TO podium_system;
      END IF;
      IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
         AND NOT pg_has_role(current_user, 'podium_system', 'MEMBER') THEN
        EXECUTE format('GRANT podium_system TO %I', current_user);
      END IF;
      EXIT;
    EXCEPTION WHEN duplicate_object OR unique_violation OR internal_error THEN
      PERFORM pg_sleep(0.05 * attempt);
    END;
  END LOOP;
END
$$;

-- Every table with row-level security: podium_tenant compares organization_id (id for
-- organizations) with the session's organization, read once per statement (an init plan);
-- podium_system admits every row to podium_system only.
DO $$
DECLARE
  t record;
  col text;
BEGIN
  FOR t IN SELECT c.oid::regclass AS tbl, c.relname FROM pg_class c
           WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relrowsecurity
           ORDER BY c.relname
  LOOP
    col := CASE WHEN t.relname = 'organizations' THEN 'id' ELSE 'organization_id' END;
    EXECUTE format('DROP POLICY IF EXISTS "podium_tenant" ON %s', t.tbl);
    EXECUTE format('DROP POLICY IF EXISTS "podium_system" ON %s', t.tbl);
    EXECUTE format('CREATE POLICY "podium_tenant" ON %s USING (%I = (SELECT current_setting(''podium.org_id'', true)))', t.tbl, col);
    EXECUTE format('CREATE POLICY "podium_system" ON %s TO podium_system USING (true) WITH CHECK (true)', t.tbl);
  END LOOP;
END
$$;

-- 4. This database's application login role. Its rights are podium_app's (INHERIT); it is a member
-- of nothing else, so a session logged in as it can SET ROLE to podium_app at most, and RESET ROLE
-- returns to it. Each database has its own, so that databases sharing a cluster (and tests) never
-- change one another's password; a database cloned from a template shares the template's role and
-- row, which stay consistent.
CREATE TABLE "podium_app_login" (
  "role" name NOT NULL,
  "password" text NOT NULL,
  "made_in" name NOT NULL
);
REVOKE ALL ON "podium_app_login" FROM PUBLIC;
REVOKE ALL ON "podium_app_login" FROM podium_app;
DO $$
DECLARE
  r text := 'podium_app_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16);
  p text := replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
BEGIN
  EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION INHERIT '
    'PASSWORD %L IN ROLE podium_app', r, p);
  INSERT INTO "podium_app_login" ("role", "password", "made_in") VALUES (r, p, current_database());
END
$$;
