-- Create "sign_in_tokens" table
CREATE TABLE "sign_in_tokens" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "email" character varying NOT NULL, "hash" character varying NOT NULL, "next" character varying NOT NULL DEFAULT '/me', "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "sign_in_tokens_hash_key" to table: "sign_in_tokens"
CREATE UNIQUE INDEX "sign_in_tokens_hash_key" ON "sign_in_tokens" ("hash");
-- Create index "signintoken_expires_at" to table: "sign_in_tokens"
CREATE INDEX "signintoken_expires_at" ON "sign_in_tokens" ("expires_at");
-- Create "browser_sessions" table
CREATE TABLE "browser_sessions" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "hash" character varying NOT NULL, "expires_at" timestamptz NOT NULL, "last_seen_at" timestamptz NOT NULL, "revoked_at" timestamptz NULL, "user_agent" character varying NULL, "user_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "browser_sessions_users_browser_sessions" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "browser_sessions_hash_key" to table: "browser_sessions"
CREATE UNIQUE INDEX "browser_sessions_hash_key" ON "browser_sessions" ("hash");
-- Create index "browsersession_expires_at" to table: "browser_sessions"
CREATE INDEX "browsersession_expires_at" ON "browser_sessions" ("expires_at");
-- Create index "browsersession_user_id" to table: "browser_sessions"
CREATE INDEX "browsersession_user_id" ON "browser_sessions" ("user_id");
