package schema

import (
	"fmt"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/podium/podium/ent/schema/pid"
)

// idMixin gives a type its prefixed string id ("evt_…"), made by the application so that an id
// tells what it names (see package pid).
type idMixin struct {
	mixin.Schema
	prefix string
}

// Fields of the idMixin.
func (m idMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").
			Immutable().
			NotEmpty().
			MaxLen(40).
			DefaultFunc(func() string { return pid.New(m.prefix) }).
			Comment(fmt.Sprintf("The id: %q and 26 time-ordered characters, as in %s_01jd3k2m9q8r7s6t5v4w3x2y1z. "+
				"Opaque to clients; the prefix tells what the id names.", m.prefix+"_", m.prefix)),
	}
}

// timeMixin records when a row was created and last changed. Every stored record carries both.
type timeMixin struct{ mixin.Schema }

// Fields of the timeMixin.
func (timeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Immutable().Default(time.Now).
			Annotations(entgql.OrderField("CREATED_AT")).
			Comment("When the record was created."),
		field.Time("updated_at").Default(time.Now).UpdateDefault(time.Now).
			Comment("When the record last changed."),
	}
}

// tenantMixin marks a type as tenant data: every row belongs to one organization, and its table
// has an organization_id column saying which. Two walls keep organizations apart, each enough on
// its own (docs/tenancy.md):
//
//   - in the code, the tenant filter package dbx installs on every ent client it makes
//     filters every query and write of a tenant type to the context's organization, and
//     fail when the context has none (viewer.ErrNoScope) unless it is marked viewer.System;
//   - in PostgreSQL, a row-level security policy on the table admits only rows of the
//     organization the database layer set for the statement (podium.org_id).
//
// Tables below an event or another parent carry a copy of their parent's organization_id
// (denormalized), so that both walls test one column of the row itself instead of walking up to
// the event: policies stay as fast as an equality. The mixin declares that column; a trigger
// fills and checks it against the parent on every insert, so hand-written INSERTs need not name
// it (ent/migrate/migrations, tenant_rls).
type tenantMixin struct {
	mixin.Schema
	// own marks types that declare organization_id themselves, with their edge to the
	// organization (events, API keys, members, invitations).
	own bool
	// self marks the organizations table itself, whose own id is the organization.
	self bool
}

// orgScoped is for types declaring organization_id (and their organization edge) themselves.
func orgScoped() tenantMixin { return tenantMixin{own: true} }

// eventScoped is for types below an event; their organization_id is the event's.
func eventScoped() tenantMixin { return tenantMixin{} }

// childScoped is for types below another tenant type (a submission, a review round, an API key);
// their organization_id is the parent's. It differs from eventScoped only in what it documents.
func childScoped() tenantMixin { return tenantMixin{} }

// Fields of the tenantMixin: the denormalized organization_id.
func (m tenantMixin) Fields() []ent.Field {
	if m.own || m.self {
		return nil
	}
	return []ent.Field{
		field.String("organization_id").Immutable().NotEmpty().
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The id of its organization, copied from its parent when the row is inserted, so that " +
				"the tenant filter and PostgreSQL's row-level security test the row itself."),
	}
}

// tenantColumn maps each tenant type's name to the column holding its organization. Every schema
// type is listed; those without a tenantMixin (users) are not tenant data.
var tenantColumn = func() map[string]string {
	types := map[string]ent.Interface{
		"AIReviewResult": AIReviewResult{}, "APIKey": APIKey{}, "Contact": Contact{},
		"DeliverableAssignment": DeliverableAssignment{}, "EmailLog": EmailLog{}, "Event": Event{},
		"EventMember": EventMember{}, "FileRequirement": FileRequirement{}, "Form": Form{}, "Format": Format{},
		"IdempotencyRecord": IdempotencyRecord{}, "Level": Level{}, "Organization": Organization{},
		"OrganizationInvitation": OrganizationInvitation{}, "OrganizationMember": OrganizationMember{},
		"Resource": Resource{}, "ReviewAnswer": ReviewAnswer{}, "ReviewAssignment": ReviewAssignment{},
		"ReviewCriterion": ReviewCriterion{}, "ReviewRound": ReviewRound{}, "ReviewRoundMember": ReviewRoundMember{},
		"Room": Room{}, "Submission": Submission{}, "SubmissionParticipant": SubmissionParticipant{}, "Tag": Tag{},
		"TaskAssignment": TaskAssignment{}, "TaskTemplate": TaskTemplate{}, "TimelineEntry": TimelineEntry{},
		"Track": Track{}, "User": User{},
	}
	out := make(map[string]string)
	for name, t := range types {
		for _, m := range t.Mixin() {
			if tm, ok := m.(tenantMixin); ok {
				out[name] = "organization_id"
				if tm.self {
					out[name] = "id"
				}
			}
		}
	}
	return out
}()

// TenantColumns returns the name of every tenant type (as ent queries and mutations report it)
// and the column holding its organization. Package dbx builds the tenant filter from it.
func TenantColumns() map[string]string {
	out := make(map[string]string, len(tenantColumn))
	for k, v := range tenantColumn {
		out[k] = v
	}
	return out
}

// gqlName keeps a field's GraphQL name in the REST API's camelCase: "website_url" is exposed as
// "websiteUrl" and "event_id" as "eventId", where entgql's default would write "websiteURL" and
// "eventID". REST and GraphQL share field names, so integrators learn one vocabulary.
func gqlName(snake string) entgql.Annotation {
	words := strings.Split(snake, "_")
	for i := 1; i < len(words); i++ {
		if words[i] != "" {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
	}
	return entgql.MapsTo(strings.Join(words, ""))
}

// ref declares the foreign-key column of an edge, required and immutable: a row never moves to
// another parent. Its comment ("The id of its event.") comes from the name; see withComment.
func ref(name string, more ...schema.Annotation) ent.Field {
	return field.String(name).Immutable().Annotations(append([]schema.Annotation{gqlName(name)}, more...)...).
		Comment(fmt.Sprintf("The id of its %s.", refNoun(name)))
}

// optionalRef declares a nullable foreign-key column.
func optionalRef(name string, more ...schema.Annotation) ent.Field {
	return field.String(name).Optional().Nillable().Annotations(append([]schema.Annotation{gqlName(name)}, more...)...).
		Comment(fmt.Sprintf("The id of its %s, or null.", refNoun(name)))
}

// refNoun names what a foreign-key column refers to: "event member" for "event_member_id".
func refNoun(column string) string {
	return strings.ReplaceAll(strings.TrimSuffix(column, "_id"), "_", " ")
}

// withComment replaces the comment of a field a helper built (ref, optionalRef), where the generic
// one says too little. The comment documents the generated Go field and is the field's GraphQL
// description; it is not written to the database.
func withComment(f ent.Field, comment string) ent.Field {
	f.Descriptor().Comment = comment
	return f
}

// hidden keeps a type out of the GraphQL schema until a transport serves it.
func hidden() entgql.Annotation { return entgql.Skip(entgql.SkipAll) }
