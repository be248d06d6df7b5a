package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

func init() {
	// DecisionSend is tenant data; tenantColumn is built before init functions run.
	for _, m := range (DecisionSend{}).Mixin() {
		if _, ok := m.(tenantMixin); ok {
			tenantColumn["DecisionSend"] = "organization_id"
		}
	}
}

// DecisionSend is one announcement of decisions (docs/decisions.md): the submissions whose
// accepted or declined decision it emails to their speakers, with the subject, feedback and
// reply-to of that send, at scheduled_at. An immediate inform records one already sent; a
// scheduled one is sent by its River job (jobs.InformDecisionsArgs) unless cancelled first.
// sent_at and cancelled_at are each set once, under the row's lock, so the job sends it at most
// once whatever is retried.
type DecisionSend struct{ ent.Schema }

// Mixin of the DecisionSend.
func (DecisionSend) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "dsend"}, timeMixin{}, eventScoped()}
}

// Fields of the DecisionSend.
func (DecisionSend) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.Strings("submission_ids").Immutable(),
		// Subject replaces the decision template's subject for this send; null keeps it.
		field.String("subject").Optional().Nillable().Immutable().Validate(text("Subject", 200)),
		field.Text("feedback").Optional().Nillable().Immutable().Validate(text("Feedback", 20000)),
		field.String("reply_to").Optional().Nillable().Immutable().Validate(text("Reply-to", 320)),
		field.Time("scheduled_at").Immutable(),
		field.Time("sent_at").Optional().Nillable(),
		// Sent is how many emails the send queued.
		field.Int("sent").Default(0).NonNegative(),
		field.Time("cancelled_at").Optional().Nillable(),
		field.String("created_by").Immutable().Validate(text("Created by", 300)),
	}
}

// Edges of the DecisionSend.
func (DecisionSend) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the DecisionSend.
func (DecisionSend) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "scheduled_at")}
}

// Annotations of the DecisionSend.
func (DecisionSend) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("decision_sends")}
}
