-- API key lookup without switching the connection's scope (docs/tenancy.md). A request with an API
-- key first finds the key by its hash, before its organization is known, then works in that
-- organization. Done as system work, the lookup told the session "system" and the work then told it
-- the organization again: two more round trips per request. The function below turns system on for
-- its own statement only (SET on a function lasts for the call), so the lookup runs on a connection
-- in whatever scope it is, and returns nothing but what authentication needs.
CREATE FUNCTION "podium_api_key"("key_hash" text)
RETURNS TABLE ("id" character varying, "organization_id" character varying, "name" character varying)
LANGUAGE sql STABLE
SET "podium.system" = 'on'
AS $$
    SELECT k.id, k.organization_id, k.name FROM api_keys k WHERE k.hash = key_hash AND k.revoked_at IS NULL
$$;
GRANT EXECUTE ON FUNCTION "podium_api_key"(text) TO podium_app;
