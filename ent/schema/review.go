package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ReviewRound is one pass of reviewing over an event's submissions, with its own scorecard, window,
// anonymity and reviewer pool.
type ReviewRound struct{ ent.Schema }

// Mixin of the ReviewRound.
func (ReviewRound) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "rnd"}, timeMixin{}, eventScoped()}
}

// Fields of the ReviewRound.
func (ReviewRound) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("name").Validate(requiredText("Round name", 200)),
		field.Time("opens_at"),
		field.Time("closes_at"),
		// blind rounds hide participant names and companies from reviewers and the AI provider.
		field.Bool("blind").Default(false),
		field.Int("reviews_per_submission").Default(2).Validate(between("reviewsPerSubmission", 1, 10)),
		field.Int("position").Default(1).Validate(atLeast("position", 1)),
		// status is taken from the window when the round is saved.
		field.Enum("status").Values("draft", "open", "closed").Default("draft"),
	}
}

// Edges of the ReviewRound.
func (ReviewRound) Edges() []ent.Edge {
	cascade := func(name string, t any) ent.Edge {
		return edge.To(name, t).Annotations(entsql.OnDelete(entsql.Cascade))
	}
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("review_rounds").Field("event_id").Unique().Required().Immutable(),
		cascade("criteria", ReviewCriterion.Type),
		cascade("members", ReviewRoundMember.Type),
		cascade("assignments", ReviewAssignment.Type),
		cascade("ai_results", AIReviewResult.Type),
	}
}

// Indexes of the ReviewRound.
func (ReviewRound) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "position")}
}

// Annotations of the ReviewRound.
func (ReviewRound) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// ReviewCriterion is one line of a round's scorecard: a numeric score within [min, max] weighted
// into the aggregate, a dropdown whose answers form the recommendation, or free text.
type ReviewCriterion struct{ ent.Schema }

// Mixin of the ReviewCriterion.
func (ReviewCriterion) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "crit"}, timeMixin{}, childScoped()}
}

// Fields of the ReviewCriterion.
func (ReviewCriterion) Fields() []ent.Field {
	return []ent.Field{
		ref("round_id"),
		field.String("label").Validate(requiredText("Label", 300)),
		field.Enum("type").Values("numeric", "dropdown", "text"),
		field.Float("min").Optional().Nillable(),
		field.Float("max").Optional().Nillable(),
		field.Strings("options").Default([]string{}),
		field.Bool("required").Default(false),
		field.Float("weight").Default(1),
		field.Int("position").Default(1),
	}
}

// Edges of the ReviewCriterion.
func (ReviewCriterion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("round", ReviewRound.Type).Ref("criteria").Field("round_id").Unique().Required().Immutable(),
		edge.To("answers", ReviewAnswer.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ReviewCriterion.
func (ReviewCriterion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("round_id", "position")}
}

// Annotations of the ReviewCriterion.
func (ReviewCriterion) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("review_criteria")}
}

// ReviewRoundMember puts an event member in a round's reviewer pool, with an optional cap on
// the assignments they take.
type ReviewRoundMember struct{ ent.Schema }

// Mixin of the ReviewRoundMember.
func (ReviewRoundMember) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "rmem"}, timeMixin{}, childScoped()}
}

// Fields of the ReviewRoundMember.
func (ReviewRoundMember) Fields() []ent.Field {
	return []ent.Field{
		ref("round_id"),
		ref("event_member_id"),
		field.Int("assignment_cap").Optional().Nillable().Validate(atLeast("assignmentCap", 1)),
	}
}

// Edges of the ReviewRoundMember.
func (ReviewRoundMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("round", ReviewRound.Type).Ref("members").Field("round_id").Unique().Required().Immutable(),
		edge.From("event_member", EventMember.Type).Ref("round_memberships").Field("event_member_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ReviewRoundMember.
func (ReviewRoundMember) Indexes() []ent.Index {
	return []ent.Index{index.Fields("round_id", "event_member_id").Unique()}
}

// Annotations of the ReviewRoundMember.
func (ReviewRoundMember) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// ReviewAssignment asks one reviewer to review one submission in one round.
type ReviewAssignment struct{ ent.Schema }

// Mixin of the ReviewAssignment.
func (ReviewAssignment) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "asg"}, timeMixin{}, childScoped()}
}

// Fields of the ReviewAssignment.
func (ReviewAssignment) Fields() []ent.Field {
	return []ent.Field{
		ref("round_id"),
		ref("submission_id"),
		ref("event_member_id"),
		field.Enum("status").Values("pending", "completed", "recused").Default("pending"),
		field.Time("assigned_at"),
		field.Time("completed_at").Optional().Nillable(),
		field.Time("recused_at").Optional().Nillable(),
		field.String("recusal_reason").Optional().Nillable().Validate(text("Reason", 2000)),
	}
}

// Edges of the ReviewAssignment.
func (ReviewAssignment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("round", ReviewRound.Type).Ref("assignments").Field("round_id").Unique().Required().Immutable(),
		edge.From("submission", Submission.Type).Ref("review_assignments").Field("submission_id").Unique().Required().Immutable(),
		edge.From("event_member", EventMember.Type).Ref("review_assignments").Field("event_member_id").Unique().Required().Immutable(),
		edge.To("answers", ReviewAnswer.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ReviewAssignment.
func (ReviewAssignment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("round_id", "submission_id", "event_member_id").Unique(),
		index.Fields("round_id", "event_member_id"),
		index.Fields("submission_id"),
	}
}

// Annotations of the ReviewAssignment.
func (ReviewAssignment) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// ReviewAnswer is a reviewer's answer to one criterion; exactly one value column is set,
// matching the criterion's type.
type ReviewAnswer struct{ ent.Schema }

// Mixin of the ReviewAnswer.
func (ReviewAnswer) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ans"}, timeMixin{}, childScoped()}
}

// Fields of the ReviewAnswer.
func (ReviewAnswer) Fields() []ent.Field {
	return []ent.Field{
		ref("assignment_id"),
		ref("criterion_id"),
		field.Float("numeric_value").Optional().Nillable(),
		field.Text("text_value").Optional().Nillable().Validate(text("Answer", 20000)),
		field.String("option_value").Optional().Nillable().Validate(text("Answer", 500)),
	}
}

// Edges of the ReviewAnswer.
func (ReviewAnswer) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("assignment", ReviewAssignment.Type).Ref("answers").Field("assignment_id").Unique().Required().Immutable(),
		edge.From("criterion", ReviewCriterion.Type).Ref("answers").Field("criterion_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ReviewAnswer.
func (ReviewAnswer) Indexes() []ent.Index {
	return []ent.Index{index.Fields("assignment_id", "criterion_id").Unique()}
}

// Annotations of the ReviewAnswer.
func (ReviewAnswer) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// AIReviewResult is the AI provider's score for one submission in one round, kept apart from the
// humans' reviews. An organizer can override it; the original score stays and the override records
// who made it. Re-running the AI replaces the result and clears the override.
type AIReviewResult struct{ ent.Schema }

// Mixin of the AIReviewResult.
func (AIReviewResult) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "air"}, timeMixin{}, childScoped()}
}

// Fields of the AIReviewResult.
func (AIReviewResult) Fields() []ent.Field {
	return []ent.Field{
		ref("round_id"),
		ref("submission_id"),
		field.Float("score"),
		field.Text("reasoning").Validate(text("Reasoning", 50000)),
		field.String("provider").Validate(text("Provider", 100)),
		field.String("model").Validate(text("Model", 200)),
		field.Float("overridden_score").Optional().Nillable(),
		field.Text("override_reason").Optional().Nillable().Validate(text("Reason", 5000)),
		optionalRef("overridden_by_user_id"),
		optionalRef("overridden_by_api_key_id"),
		field.Time("overridden_at").Optional().Nillable(),
	}
}

// Edges of the AIReviewResult.
func (AIReviewResult) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("round", ReviewRound.Type).Ref("ai_results").Field("round_id").Unique().Required().Immutable(),
		edge.From("submission", Submission.Type).Ref("ai_results").Field("submission_id").Unique().Required().Immutable(),
	}
}

// Indexes of the AIReviewResult.
func (AIReviewResult) Indexes() []ent.Index {
	return []ent.Index{index.Fields("round_id", "submission_id").Unique()}
}

// Annotations of the AIReviewResult.
func (AIReviewResult) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("ai_review_results")}
}
