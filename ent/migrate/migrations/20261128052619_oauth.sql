-- Create "oauth_clients" table
CREATE TABLE "oauth_clients" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "uri" character varying NOT NULL DEFAULT '', "redirect_uris" jsonb NOT NULL, "registered_from" character varying NOT NULL DEFAULT '', "last_used_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "oauthclient_created_at" to table: "oauth_clients"
CREATE INDEX "oauthclient_created_at" ON "oauth_clients" ("created_at");
-- Create index "oauthclient_registered_from_created_at" to table: "oauth_clients"
CREATE INDEX "oauthclient_registered_from_created_at" ON "oauth_clients" ("registered_from", "created_at");
-- Create "oauth_requests" table
CREATE TABLE "oauth_requests" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "client_id" character varying NOT NULL, "redirect_uri" character varying NOT NULL, "state" character varying NOT NULL DEFAULT '', "scopes" jsonb NOT NULL, "granted_scopes" jsonb NULL, "code_challenge" character varying NOT NULL, "resource" character varying NOT NULL DEFAULT '', "nonce" character varying NOT NULL DEFAULT '', "user_id" character varying NULL, "grant_id" character varying NULL, "code_hash" character varying NULL, "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "oauth_requests_code_hash_key" to table: "oauth_requests"
CREATE UNIQUE INDEX "oauth_requests_code_hash_key" ON "oauth_requests" ("code_hash");
-- Create index "oauthrequest_expires_at" to table: "oauth_requests"
CREATE INDEX "oauthrequest_expires_at" ON "oauth_requests" ("expires_at");
-- Create "oauth_grants" table
CREATE TABLE "oauth_grants" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "scopes" jsonb NOT NULL, "last_used_at" timestamptz NULL, "revoked_at" timestamptz NULL, "client_id" character varying NOT NULL, "user_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "oauth_grants_oauth_clients_grants" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "oauth_grants_users_oauth_grants" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "oauthgrant_client_id" to table: "oauth_grants"
CREATE INDEX "oauthgrant_client_id" ON "oauth_grants" ("client_id");
-- Create index "oauthgrant_user_id" to table: "oauth_grants"
CREATE INDEX "oauthgrant_user_id" ON "oauth_grants" ("user_id");
-- Create "oauth_tokens" table
CREATE TABLE "oauth_tokens" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "kind" character varying NOT NULL, "hash" character varying NULL, "refresh_id" character varying NULL, "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, "revoked_at" timestamptz NULL, "grant_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "oauth_tokens_oauth_grants_tokens" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "oauth_tokens_hash_key" to table: "oauth_tokens"
CREATE UNIQUE INDEX "oauth_tokens_hash_key" ON "oauth_tokens" ("hash");
-- Create index "oauthtoken_expires_at" to table: "oauth_tokens"
CREATE INDEX "oauthtoken_expires_at" ON "oauth_tokens" ("expires_at");
-- Create index "oauthtoken_grant_id" to table: "oauth_tokens"
CREATE INDEX "oauthtoken_grant_id" ON "oauth_tokens" ("grant_id");
-- Create index "oauthtoken_refresh_id" to table: "oauth_tokens"
CREATE INDEX "oauthtoken_refresh_id" ON "oauth_tokens" ("refresh_id");
