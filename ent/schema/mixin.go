package schema

import (
	"context"
	"fmt"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/podium/podium/ent/intercept"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
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

// hop is one step from a table towards its organization: the column holding the parent's id and
// the parent's table.
type hop struct{ column, table string }

// tenantMixin makes every query of a type see only the viewer's organization. It is the schema's
// guarantee that another organization's data is never visible, whatever code path builds the
// query: a resolver, a REST handler, entgql's node resolution or an eager load. Contexts without a
// viewer (the command line, background jobs) see everything.
type tenantMixin struct {
	mixin.Schema
	// path leads from the type's table to a table with an organization_id column; empty when the
	// type's own table has that column.
	path []hop
	// self marks the organizations table itself, whose own id is the organization.
	self bool
}

// orgScoped is for tables holding organization_id themselves.
func orgScoped() tenantMixin { return tenantMixin{} }

// eventScoped is for tables holding event_id.
func eventScoped() tenantMixin { return via("event_id", "events") }

// via is for tables reaching their organization through parents, e.g.
// via("round_id", "review_rounds", "event_id", "events").
func via(columnsAndTables ...string) tenantMixin {
	if len(columnsAndTables)%2 != 0 {
		panic("schema: via needs column/table pairs")
	}
	m := tenantMixin{}
	for i := 0; i < len(columnsAndTables); i += 2 {
		m.path = append(m.path, hop{column: columnsAndTables[i], table: columnsAndTables[i+1]})
	}
	return m
}

// Interceptors of the tenantMixin.
func (m tenantMixin) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{
		ent.TraverseFunc(func(ctx context.Context, q ent.Query) error {
			v := viewer.FromContext(ctx)
			if v == nil {
				return nil
			}
			w, err := intercept.NewQuery(q)
			if err != nil {
				return fmt.Errorf("schema: tenant filter: %w", err)
			}
			w.WhereP(m.predicate(v.OrganizationID))
			return nil
		}),
	}
}

// predicate restricts a selector to rows of the organization org.
func (m tenantMixin) predicate(org string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if m.self {
			s.Where(sql.EQ(s.C("id"), org))
			return
		}
		if len(m.path) == 0 {
			s.Where(sql.EQ(s.C("organization_id"), org))
			return
		}
		last := m.path[len(m.path)-1]
		inner := sql.Select("id").From(sql.Table(last.table)).Where(sql.EQ("organization_id", org))
		for i := len(m.path) - 2; i >= 0; i-- {
			inner = sql.Select("id").From(sql.Table(m.path[i].table)).
				Where(sql.In(m.path[i+1].column, inner))
		}
		s.Where(sql.In(s.C(m.path[0].column), inner))
	}
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
