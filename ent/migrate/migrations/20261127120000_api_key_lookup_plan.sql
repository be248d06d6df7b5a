-- The API key lookup keeps its plan. A LANGUAGE sql function that cannot be inlined (this one is
-- SECURITY DEFINER with its own search_path) is parsed and planned again on every call, and every
-- request with an API key calls it; PL/pgSQL keeps the plan of its query for the session. Same
-- signature, rights and settings as before (20261124103000_api_key_lookup, 20261125010000_tenant_references).
CREATE OR REPLACE FUNCTION "podium_api_key"("key_hash" text)
RETURNS TABLE ("id" character varying, "organization_id" character varying, "name" character varying)
LANGUAGE plpgsql STABLE SECURITY DEFINER
AS $$
BEGIN
    RETURN QUERY SELECT k.id, k.organization_id, k.name FROM api_keys k WHERE k.hash = key_hash AND k.revoked_at IS NULL;
END
$$;
DO $$ BEGIN EXECUTE format('ALTER FUNCTION "podium_api_key"(text) SET search_path = %I, pg_temp', current_schema()); END $$;
REVOKE ALL ON FUNCTION "podium_api_key"(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;
