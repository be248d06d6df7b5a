package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// The OAuth tables hold what lets an application act for a person who signed in to Podium
// (docs/agents.md): the applications registered, the authorizations in progress, what each person
// granted to each application, and the tokens. They are system state like users and browser
// sessions: a person spans organizations, and so does what they grant.

// OAuthClient is an application registered by dynamic client registration (RFC 7591): a public
// client (no secret) that proves itself with PKCE on every authorization.
type OAuthClient struct{ ent.Schema }

// Mixin of the OAuthClient.
func (OAuthClient) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ocl"}, timeMixin{}}
}

// Fields of the OAuthClient.
func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		// name is the client_name it registered with, shown on the consent page as the client's claim.
		field.String("name").Immutable().Validate(requiredText("Client name", 100)),
		// uri is its client_uri, shown beside the name; empty when none.
		field.String("uri").Immutable().Default("").Validate(text("Client URI", 500)),
		// redirect_uris are the exact addresses codes may be sent to.
		field.Strings("redirect_uris").Immutable(),
		// registered_from is the network the registration came from (an IPv4 /24 or IPv6 /56), so
		// that registrations per network can be bounded.
		field.String("registered_from").Immutable().Default("").MaxLen(64),
		// last_used_at is when a person last authorized it or it last took a token; clients never
		// authorized are removed after a day.
		field.Time("last_used_at").Optional().Nillable(),
	}
}

// Edges of the OAuthClient.
func (OAuthClient) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("grants", OAuthGrant.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the OAuthClient.
func (OAuthClient) Indexes() []ent.Index {
	return []ent.Index{index.Fields("registered_from", "created_at"), index.Fields("created_at")}
}

// Annotations of the OAuthClient.
func (OAuthClient) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("oauth_clients")}
}

// OAuthRequest is an authorization in progress: from the client's authorization request, through
// the person's consent, to the code it is exchanged for once. Only the SHA-256 of the code is kept.
type OAuthRequest struct{ ent.Schema }

// Mixin of the OAuthRequest.
func (OAuthRequest) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "oar"}, timeMixin{}}
}

// Fields of the OAuthRequest.
func (OAuthRequest) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").Immutable(),
		field.String("redirect_uri").Immutable().MaxLen(2000),
		field.String("state").Immutable().Default("").MaxLen(2000),
		// scopes are the scopes asked for; granted_scopes those the person granted.
		field.Strings("scopes").Immutable(),
		field.Strings("granted_scopes").Optional(),
		// code_challenge is PKCE's S256 challenge.
		field.String("code_challenge").Immutable().MaxLen(128),
		// resource is the resource indicator (RFC 8707) asked for; empty when none.
		field.String("resource").Immutable().Default("").MaxLen(2000),
		field.String("nonce").Immutable().Default("").MaxLen(500),
		// user_id is the person who consented; empty until then.
		field.String("user_id").Optional().Nillable(),
		// grant_id is the grant the consent made.
		field.String("grant_id").Optional().Nillable(),
		field.String("code_hash").Optional().Nillable().Unique().Sensitive(),
		field.Time("expires_at"),
		// used_at is when its code was exchanged; a second exchange revokes the grant.
		field.Time("used_at").Optional().Nillable(),
	}
}

// Indexes of the OAuthRequest.
func (OAuthRequest) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}

// Annotations of the OAuthRequest.
func (OAuthRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("oauth_requests")}
}

// OAuthGrant is what a person granted one application: the scopes, until revoked. Every token
// belongs to a grant, and revoking the grant ends them all at once.
type OAuthGrant struct{ ent.Schema }

// Mixin of the OAuthGrant.
func (OAuthGrant) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ogr"}, timeMixin{}}
}

// Fields of the OAuthGrant.
func (OAuthGrant) Fields() []ent.Field {
	return []ent.Field{
		ref("user_id"),
		ref("client_id"),
		// scopes are read, write and send_mail (as API keys' scopes).
		field.Strings("scopes"),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the OAuthGrant.
func (OAuthGrant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("oauth_grants").Field("user_id").Unique().Required().Immutable(),
		edge.From("client", OAuthClient.Type).Ref("grants").Field("client_id").Unique().Required().Immutable(),
		edge.To("tokens", OAuthToken.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the OAuthGrant.
func (OAuthGrant) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id"), index.Fields("client_id")}
}

// Annotations of the OAuthGrant.
func (OAuthGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("oauth_grants")}
}

// OAuthToken is an access or refresh token of a grant. Only the SHA-256 of a refresh token is kept;
// an access token names its row by id inside an encrypted value. A refresh token is used once: its
// use rotates it, and a second use revokes the grant (the token was copied).
type OAuthToken struct{ ent.Schema }

// Mixin of the OAuthToken.
func (OAuthToken) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "otk"}, timeMixin{}}
}

// Fields of the OAuthToken.
func (OAuthToken) Fields() []ent.Field {
	return []ent.Field{
		ref("grant_id"),
		field.Enum("kind").Values("access", "refresh").Immutable(),
		// hash is the hex SHA-256 of a refresh token; null for access tokens.
		field.String("hash").Optional().Nillable().Unique().Immutable().Sensitive(),
		// refresh_id is the refresh token an access token was issued with, so that revoking
		// either ends both.
		field.String("refresh_id").Optional().Nillable().Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the OAuthToken.
func (OAuthToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("grant", OAuthGrant.Type).Ref("tokens").Field("grant_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OAuthToken.
func (OAuthToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("grant_id"), index.Fields("expires_at"), index.Fields("refresh_id")}
}

// Annotations of the OAuthToken.
func (OAuthToken) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("oauth_tokens")}
}
