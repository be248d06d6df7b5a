-- The API key lookup answers what a key may do, and refuses an expired key as it refuses a revoked
-- one (docs/rest-api.md §2). The answer gains columns, so the function is dropped and made again,
-- with the same kind (PL/pgSQL, to keep its plan), rights and settings as before
-- (20261127120000_api_key_lookup_plan).
DROP FUNCTION "podium_api_key"(text);
CREATE FUNCTION "podium_api_key"("key_hash" text)
RETURNS TABLE ("id" character varying, "organization_id" character varying, "name" character varying,
               "scopes" jsonb, "event_id" character varying)
LANGUAGE plpgsql STABLE SECURITY DEFINER
AS $$
BEGIN
    RETURN QUERY SELECT k.id, k.organization_id, k.name, k.scopes, k.event_id FROM api_keys k
        WHERE k.hash = key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());
END
$$;
ALTER FUNCTION "podium_api_key"(text) SECURITY DEFINER RESET ALL;
DO $$ BEGIN EXECUTE format('ALTER FUNCTION "podium_api_key"(text) SET search_path = %I, pg_temp', current_schema()); END $$;
REVOKE ALL ON FUNCTION "podium_api_key"(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;
-- A key's event is of the key's organization: the composite partner of api_keys_events_event.
SELECT "podium_tenant_references"();
