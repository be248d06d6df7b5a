package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Organization is a tenant: it owns events and API keys. Nothing crosses organizations.
type Organization struct{ ent.Schema }

// Mixin of the Organization.
func (Organization) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "org"}, timeMixin{}, tenantMixin{self: true}}
}

// Fields of the Organization.
func (Organization) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(requiredText("Organization name", 200)).
			Comment("The organization's name."),
		field.String("slug").Unique().Validate(requiredText("Organization slug", 200)).
			Comment("The organization's URL name, unique across Podium."),
		field.String("logo").Optional().Nillable().Validate(text("Logo", 2048)).
			Comment("Where the organization's logo can be downloaded; null when it has none."),
	}
}

// Edges of the Organization.
func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("events", Event.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
		edge.To("members", OrganizationMember.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
		edge.To("invitations", OrganizationInvitation.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
		edge.To("api_keys", APIKey.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
	}
}

// Annotations of the Organization.
func (Organization) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.Skip(entgql.SkipWhereInput, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("Organization is the tenant that owns events and API keys. An API key acts for one " +
			"organization, as an admin of every one of its events; nothing crosses organizations. REST: GET " +
			"/organization."),
	}
}

// User is a person who can sign in to the organizer app, be an organization or event member, and
// review. API keys act for an organization, not for a user.
type User struct{ ent.Schema }

// Mixin of the User.
func (User) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "usr"}, timeMixin{}}
}

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").Unique().Validate(email),
		field.String("name").Validate(text("Name", 200)),
		field.String("image").Optional().Nillable().Validate(text("Image", 2048)),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("organization_memberships", OrganizationMember.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("event_memberships", EventMember.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("browser_sessions", BrowserSession.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("oauth_grants", OAuthGrant.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// OrganizationMember gives a user a role in an organization. Owners and admins administer every
// event of the organization.
type OrganizationMember struct{ ent.Schema }

// Mixin of the OrganizationMember.
func (OrganizationMember) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "om"}, timeMixin{}, orgScoped()}
}

// Fields of the OrganizationMember.
func (OrganizationMember) Fields() []ent.Field {
	return []ent.Field{
		ref("organization_id"),
		ref("user_id"),
		field.Enum("role").Values("owner", "admin", "member"),
	}
}

// Edges of the OrganizationMember.
func (OrganizationMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("members").
			Field("organization_id").Unique().Required().Immutable(),
		edge.From("user", User.Type).Ref("organization_memberships").
			Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OrganizationMember.
func (OrganizationMember) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "user_id").Unique()}
}

// Annotations of the OrganizationMember.
func (OrganizationMember) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// OrganizationInvitation is an invitation to join an organization, pending until accepted in the
// organizer app.
type OrganizationInvitation struct{ ent.Schema }

// Mixin of the OrganizationInvitation.
func (OrganizationInvitation) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "oinv"}, timeMixin{}, orgScoped()}
}

// Fields of the OrganizationInvitation.
func (OrganizationInvitation) Fields() []ent.Field {
	return []ent.Field{
		ref("organization_id"),
		field.String("email").Validate(email),
		field.Enum("role").Values("owner", "admin", "member"),
		field.Enum("status").Values("pending", "accepted", "rejected", "canceled").Default("pending"),
		field.Time("expires_at"),
	}
}

// Edges of the OrganizationInvitation.
func (OrganizationInvitation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("invitations").
			Field("organization_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OrganizationInvitation.
func (OrganizationInvitation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "status")}
}

// Annotations of the OrganizationInvitation.
func (OrganizationInvitation) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden()}
}

// APIKey is an organization's machine credential. Only a SHA-256 hash of the secret is stored;
// the display prefix identifies a key in listings and on the command line.
type APIKey struct{ ent.Schema }

// Mixin of the APIKey.
func (APIKey) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "key"}, timeMixin{}, orgScoped()}
}

// Fields of the APIKey.
func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		ref("organization_id"),
		field.String("name").Validate(requiredText("Key name", 200)),
		// prefix is the key's first characters ("pdm_4f9a2c1b"), enough to tell keys apart.
		field.String("prefix").Unique().Immutable().Validate(requiredText("Key prefix", 40)),
		// hash is the hex SHA-256 of the whole key; the key itself is never stored.
		field.String("hash").Unique().Immutable().Sensitive().Validate(requiredText("Key hash", 64)),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
		// scopes are what the key may do (docs/rest-api.md §2): read, write, send_mail. Keys made
		// before scopes existed, and keys of the command line, hold all three.
		field.Strings("scopes").Default([]string{"read", "write", "send_mail"}).
			Annotations(entsql.DefaultExpr("jsonb_build_array('read', 'write', 'send_mail')")),
		// event_id confines the key to one event; null means every event of the organization. The
		// key goes with its event: a key that outlived it would reach the whole organization.
		field.String("event_id").Optional().Nillable().Immutable(),
		// expires_at ends the key: from then on it is refused as a revoked key is (rotation sets it
		// on the old key).
		field.Time("expires_at").Optional().Nillable(),
		// The creator: a person or another key; neither for keys of the command line.
		field.String("created_by_user_id").Optional().Nillable().Immutable(),
		field.String("created_by_api_key_id").Optional().Nillable().Immutable(),
		// api_version is the REST API version (docs/rest-api.md §1 "Versions") of this key's
		// requests that name none; null for the default version.
		field.String("api_version").Optional().Nillable().Validate(text("API version", 10)),
	}
}

// Edges of the APIKey.
func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("api_keys").
			Field("organization_id").Unique().Required().Immutable(),
		edge.To("idempotency_records", IdempotencyRecord.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("event", Event.Type).Field("event_id").Unique().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Annotations of the APIKey.
func (APIKey) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("api_keys")}
}

// IdempotencyRecord remembers a write made with an Idempotency-Key header, so that a client
// retrying the same request gets the first response instead of a second write. It is written in
// the write's own transaction: a request that fails leaves no record, and the retry runs anew.
type IdempotencyRecord struct{ ent.Schema }

// IdempotencyExpired is the SQL condition of an idempotency record past its 24 hours: REST no
// longer honours its key (rest/idempotency.go) and the hourly prune job deletes it
// (jobs/prune.go).
const IdempotencyExpired = "created_at < now() - interval '24 hours'"

// Mixin of the IdempotencyRecord.
func (IdempotencyRecord) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "idem"}, timeMixin{}, childScoped()}
}

// Fields of the IdempotencyRecord.
func (IdempotencyRecord) Fields() []ent.Field {
	return []ent.Field{
		// api_key_id or user_id scopes keys — the API key, or the person (through an application
		// they authorized: docs/agents.md) in the organization they act for —, so that two clients
		// may choose the same key without meeting. Exactly one is set (a check constraint).
		field.String("api_key_id").Optional().Nillable().Immutable().Annotations(gqlName("api_key_id")).
			Comment("The API key the key was sent with, or null for a person's."),
		field.String("user_id").Optional().Nillable().Immutable().
			Comment("The person the key was sent for, or null for an API key's."),
		field.String("key").Immutable().Validate(requiredText("Idempotency key", 255)),
		// request_hash is the SHA-256 of the method, path and body: the same key with another
		// request is refused.
		field.String("request_hash").Immutable(),
		field.Int("status"),
		field.Bytes("response"),
	}
}

// Edges of the IdempotencyRecord.
func (IdempotencyRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("api_key", APIKey.Type).Ref("idempotency_records").Field("api_key_id").Unique().Immutable(),
	}
}

// Indexes of the IdempotencyRecord.
func (IdempotencyRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("api_key_id", "key").Unique(),
		index.Fields("user_id", "organization_id", "key").Unique(),
		index.Fields("created_at"),
	}
}

// Annotations of the IdempotencyRecord.
func (IdempotencyRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("idempotency_records"),
		// Exactly one caller: an API key's record or a person's.
		entsql.Checks(map[string]string{"idempotency_records_one_caller": `(api_key_id IS NULL) <> (user_id IS NULL)`})}
}
