package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Widgets (docs/widgets.md): views of an event's published program that any site can embed.
// The ent type is Embed, as the original product names its table, so that the GraphQL type
// Widget (graph/widgets.graphqls) does not bind to it.

func init() {
	// Embed is tenant data below an event; tenantColumn is built before init functions run.
	for _, m := range (Embed{}).Mixin() {
		if _, ok := m.(tenantMixin); ok {
			tenantColumn["Embed"] = "organization_id"
		}
	}
}

// Embed is a widget: a named view of the event's published program (sessions, speakers, a
// speaker gallery, the agenda or an itinerary) with its options, served publicly at
// /embed/{id} while enabled.
type Embed struct{ ent.Schema }

// Mixin of the Embed.
func (Embed) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "wdg"}, timeMixin{}, eventScoped()}
}

// Fields of the Embed.
func (Embed) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		// name is stored as sent (the API neither trims nor requires it, as the original's).
		field.String("name").Validate(text("Name", 200)),
		field.Enum("view").Values("sessions", "speakers", "speaker_gallery", "agenda", "itinerary"),
		field.Bool("enabled").Default(true),
		// options are the widget's filters and display options as last saved; readers normalise
		// them (graph/operation/widgets.go), so a key a later version adds reads as its default.
		field.JSON("options", map[string]any{}).Default(map[string]any{}),
	}
}

// Edges of the Embed.
func (Embed) Edges() []ent.Edge {
	return []ent.Edge{
		// The edge is declared here rather than on Event, so that deleting the event deletes its
		// widgets without Event naming every table below it.
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Embed.
func (Embed) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "name")}
}

// Annotations of the Embed.
func (Embed) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("embeds")}
}
