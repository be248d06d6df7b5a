-- The API key lookup runs on every request. Its SET search_path made each call save, set and
-- restore a setting — about a tenth of the lookup's cost under pgbench (docs/performance.md). The
-- body names everything by schema instead — the table by this one, the operators and now() by
-- pg_catalog — so a caller's search_path cannot redirect it, and the function carries no setting.
DO $$ BEGIN EXECUTE format($f$
CREATE OR REPLACE FUNCTION "podium_api_key"("key_hash" text)
RETURNS TABLE ("id" character varying, "organization_id" character varying, "name" character varying,
               "scopes" jsonb, "event_id" character varying)
LANGUAGE plpgsql STABLE SECURITY DEFINER
AS $body$
BEGIN
    RETURN QUERY SELECT k.id, k.organization_id, k.name, k.scopes, k.event_id FROM %I.api_keys k
        WHERE k.hash OPERATOR(pg_catalog.=) key_hash AND k.revoked_at IS NULL
          AND (k.expires_at IS NULL OR k.expires_at OPERATOR(pg_catalog.>) pg_catalog.now());
END
$body$
$f$, current_schema()); END $$;
ALTER FUNCTION "podium_api_key"(text) RESET ALL;
REVOKE ALL ON FUNCTION "podium_api_key"(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;
