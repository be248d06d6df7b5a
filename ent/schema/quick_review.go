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
	// QuickReview is tenant data; tenantColumn is built before init functions run.
	for _, m := range (QuickReview{}).Mixin() {
		if _, ok := m.(tenantMixin); ok {
			tenantColumn["QuickReview"] = "organization_id"
		}
	}
}

// QuickReview is a person's quick verdict on a pending proposal (docs/rest-api.md §4 "Reviews"):
// approve, maybe or deny, a score of 1 to 5 and a comment; one per person and submission, replaced
// when they review it again. It stands beside the review rounds, which score by criteria.
type QuickReview struct{ ent.Schema }

// Mixin of the QuickReview.
func (QuickReview) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "qrev"}, timeMixin{}, eventScoped()}
}

// Fields of the QuickReview.
func (QuickReview) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		ref("submission_id"),
		// user_id is the person who reviewed (an API key reviews as the person who made it).
		ref("user_id"),
		field.Enum("decision").Values("approve", "maybe", "deny"),
		field.Int("score").Range(1, 5),
		field.Text("comment").Optional().Nillable().Validate(text("Comment", 5000)),
	}
}

// Edges of the QuickReview.
func (QuickReview) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("submission", Submission.Type).Field("submission_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the QuickReview.
func (QuickReview) Indexes() []ent.Index {
	return []ent.Index{index.Fields("submission_id", "user_id").Unique()}
}

// Annotations of the QuickReview.
func (QuickReview) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("quick_reviews")}
}
