package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SignInToken is a one-time link sent by email to sign a person in (docs/people.md). Only the
// SHA-256 of the token is stored, so a copy of the database signs nobody in; the row is used once
// (used_at) and only until expires_at. It is system state, not tenant data: the address it was
// sent to may be known to several organizations, and the person it signs in spans them.
type SignInToken struct{ ent.Schema }

// Mixin of the SignInToken.
func (SignInToken) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "sit"}, timeMixin{}}
}

// Fields of the SignInToken.
func (SignInToken) Fields() []ent.Field {
	return []ent.Field{
		// email is the address the link was sent to, lower-cased: following the link proves it.
		field.String("email").Immutable().Validate(email),
		// hash is the hex SHA-256 of the token; the token itself is only in the email.
		field.String("hash").Unique().Immutable().Sensitive().Validate(requiredText("Token hash", 64)),
		// next is the path under PUBLIC_URL the person lands on once signed in.
		field.String("next").Immutable().Default("/me").Validate(text("Next", 2048)),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
	}
}

// Indexes of the SignInToken.
func (SignInToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}

// Annotations of the SignInToken.
func (SignInToken) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("sign_in_tokens")}
}

// BrowserSession is a signed-in browser: the cookie names it by a random secret whose SHA-256 is
// the row's hash. It ends at expires_at (absolute), after an idle gap (last_seen_at), or when
// revoked (sign-out, sign-out everywhere). System state like the person it belongs to.
type BrowserSession struct{ ent.Schema }

// Mixin of the BrowserSession.
func (BrowserSession) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "bss"}, timeMixin{}}
}

// Fields of the BrowserSession.
func (BrowserSession) Fields() []ent.Field {
	return []ent.Field{
		ref("user_id"),
		field.String("hash").Unique().Immutable().Sensitive().Validate(requiredText("Session hash", 64)),
		field.Time("expires_at").Immutable(),
		field.Time("last_seen_at"),
		field.Time("revoked_at").Optional().Nillable(),
		field.String("user_agent").Optional().Immutable().MaxLen(500),
		// access_link_id is the contact access link the session was opened with (docs/portal.md),
		// so that revoking a contact's links ends those sessions too; null for a sign-in link.
		field.String("access_link_id").Optional().Nillable().Immutable(),
	}
}

// Edges of the BrowserSession.
func (BrowserSession) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("browser_sessions").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the BrowserSession.
func (BrowserSession) Indexes() []ent.Index {
	// access_link_id: revoking a contact's access links ends their sessions (docs/portal.md).
	return []ent.Index{index.Fields("user_id"), index.Fields("expires_at"), index.Fields("access_link_id")}
}

// Annotations of the BrowserSession.
func (BrowserSession) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("browser_sessions")}
}

// ServerKey is a secret the whole server shares, made once and kept in the database so that every
// process, and the same one after a restart, uses the same key — such as the key that signs
// campaigns' unsubscribe links when PODIUM_UNSUBSCRIBE_KEY is unset. It is system state: row-level
// security lets only the system role read it.
type ServerKey struct{ ent.Schema }

// Mixin of the ServerKey.
func (ServerKey) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "skey"}, timeMixin{}}
}

// Fields of the ServerKey.
func (ServerKey) Fields() []ent.Field {
	return []ent.Field{
		// name says what the key is for ("unsubscribe").
		field.String("name").Unique().Immutable().Validate(requiredText("Name", 100)),
		field.Bytes("key").Immutable().Sensitive(),
	}
}

// Annotations of the ServerKey.
func (ServerKey) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("server_keys")}
}
