-- The API key lookup answers the version a key is pinned to (docs/rest-api.md §1 "Versions"). The
-- answer gains a column, so the function is dropped and made again as
-- 20261128033000_api_key_lookup_qualified made it: PL/pgSQL, SECURITY DEFINER, no setting, every
-- name in its body qualified.
DROP FUNCTION "podium_api_key"(text);
DO $$ BEGIN EXECUTE format($f$
CREATE FUNCTION "podium_api_key"("key_hash" text)
RETURNS TABLE ("id" character varying, "organization_id" character varying, "name" character varying,
               "scopes" jsonb, "event_id" character varying, "api_version" character varying)
LANGUAGE plpgsql STABLE SECURITY DEFINER
AS $body$
BEGIN
    RETURN QUERY SELECT k.id, k.organization_id, k.name, k.scopes, k.event_id, k.api_version FROM %I.api_keys k
        WHERE k.hash OPERATOR(pg_catalog.=) key_hash AND k.revoked_at IS NULL
          AND (k.expires_at IS NULL OR k.expires_at OPERATOR(pg_catalog.>) pg_catalog.now());
END
$body$
$f$, current_schema()); END $$;
REVOKE ALL ON FUNCTION "podium_api_key"(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;
