package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/podium/podium/ent/schema/agenda"
)

func init() {
	// Agenda drafts are tenant data; tenantColumn is built before init functions run.
	tenantColumn["AgendaDraft"] = "organization_id"
}

// AgendaDraft is a proposed agenda for an event (docs/agenda-drafts.md): placements of its active
// sessions in rooms and slots, made by the AI provider or the deterministic solver in a
// background job, which organizers review and accept into the live schedule.
type AgendaDraft struct{ ent.Schema }

// Mixin of the AgendaDraft.
func (AgendaDraft) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "adr"}, timeMixin{}, eventScoped()}
}

// Fields of the AgendaDraft.
func (AgendaDraft) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("name").Validate(requiredText("Name", 200)),
		// status: queued (generation waits for its job), draft (a duplicate, never generated),
		// generated, committed (accepted), discarded, failed (generation found no valid agenda).
		field.Enum("status").Values("queued", "draft", "generated", "committed", "discarded", "failed").Default("draft"),
		field.JSON("criteria", agenda.DraftCriteria{}),
		field.JSON("proposal", agenda.Proposal{}).Default(agenda.Proposal{Placements: []agenda.Placement{}}),
		field.Time("generated_at").Optional().Nillable(),
		field.Time("committed_at").Optional().Nillable(),
		// failure_reason says why a failed draft has no proposal.
		field.String("failure_reason").Optional().Nillable().Validate(text("Failure reason", 1000)),
		// generator is what made the proposal: "anthropic" or "solver".
		field.String("generator").Optional().Nillable(),
	}
}

// Edges of the AgendaDraft. The event edge is declared here alone: the event's schema need not
// know its drafts, and deleting the event deletes them (ON DELETE CASCADE in the migration).
func (AgendaDraft) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the AgendaDraft.
func (AgendaDraft) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "created_at")}
}

// Annotations of the AgendaDraft.
func (AgendaDraft) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("agenda_drafts")}
}
