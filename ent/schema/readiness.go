package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// The inputs of a session's readiness: tasks made from task templates and deliverables made from
// file requirements. Session-scoped templates and requirements give one assignment per session,
// speaker-scoped ones one per speaker of the session. Readiness itself is never stored: the
// session list derives it from these rows.

// TaskTemplate is a task organizers want done for every accepted session or each of its speakers.
type TaskTemplate struct{ ent.Schema }

// Mixin of the TaskTemplate.
func (TaskTemplate) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ttpl"}, timeMixin{}, eventScoped()}
}

// Fields of the TaskTemplate.
func (TaskTemplate) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("title").Validate(requiredText("Title", 300)),
		field.Text("instructions").Default("").Validate(text("Instructions", 20000)),
		field.Enum("scope").Values("session", "speaker"),
		field.Bool("auto_assign_on_accept").Default(true),
		field.Time("due_date").Optional().Nillable(),
		field.Int("position").Default(0),
	}
}

// Edges of the TaskTemplate.
func (TaskTemplate) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("task_templates").Field("event_id").Unique().Required().Immutable(),
		edge.To("assignments", TaskAssignment.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the TaskTemplate.
func (TaskTemplate) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "position")}
}

// Annotations of the TaskTemplate.
func (TaskTemplate) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// TaskAssignment is a task of one session, or of one speaker of that session.
type TaskAssignment struct{ ent.Schema }

// Mixin of the TaskAssignment.
func (TaskAssignment) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "task"}, timeMixin{}, childScoped()}
}

// Fields of the TaskAssignment.
func (TaskAssignment) Fields() []ent.Field {
	return []ent.Field{
		ref("template_id"),
		ref("submission_id"),
		// contact_id is set for speaker-scoped tasks.
		field.String("contact_id").Optional().Nillable().Immutable().Annotations(gqlName("contact_id")),
		field.Enum("status").Values("todo", "done", "waived").Default("todo"),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Edges of the TaskAssignment.
func (TaskAssignment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("template", TaskTemplate.Type).Ref("assignments").Field("template_id").Unique().Required().Immutable(),
		edge.From("submission", Submission.Type).Ref("tasks").Field("submission_id").Unique().Required().Immutable(),
		edge.From("contact", Contact.Type).Ref("tasks").Field("contact_id").Unique().Immutable(),
	}
}

// Indexes of the TaskAssignment.
func (TaskAssignment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("submission_id"),
		// One assignment per template and session, or per template, session and speaker.
		index.Fields("template_id", "submission_id").Unique().
			Annotations(entsql.IndexWhere("contact_id IS NULL")).StorageKey("task_assignments_session_unique"),
		index.Fields("template_id", "submission_id", "contact_id").Unique().
			Annotations(entsql.IndexWhere("contact_id IS NOT NULL")).StorageKey("task_assignments_speaker_unique"),
	}
}

// Annotations of the TaskAssignment.
func (TaskAssignment) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// FileRequirement is a file organizers need for every accepted session (slides) or from each of
// its speakers (a headshot, a signed release).
type FileRequirement struct{ ent.Schema }

// Mixin of the FileRequirement.
func (FileRequirement) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "freq"}, timeMixin{}, eventScoped()}
}

// Fields of the FileRequirement.
func (FileRequirement) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("label").Validate(requiredText("Label", 300)),
		field.Text("description").Default("").Validate(text("Description", 20000)),
		field.Enum("scope").Values("session", "speaker"),
		field.Bool("auto_assign_on_accept").Default(true),
		field.Time("due_at").Optional().Nillable(),
		field.String("accept_types").Optional().Nillable().Validate(text("Accepted types", 500)),
		field.Int("max_size_mb").Optional().Nillable().Validate(atLeast("maxSizeMb", 1)).
			Annotations(gqlName("max_size_mb")),
		field.Int("position").Default(0),
	}
}

// Edges of the FileRequirement.
func (FileRequirement) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("file_requirements").Field("event_id").Unique().Required().Immutable(),
		edge.To("assignments", DeliverableAssignment.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the FileRequirement.
func (FileRequirement) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "position")}
}

// Annotations of the FileRequirement.
func (FileRequirement) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// DeliverableAssignment is a file owed for one session, or by one speaker of that session. The
// bytes live in Podium's file store (docs/files.md) under storage_key.
type DeliverableAssignment struct{ ent.Schema }

// Mixin of the DeliverableAssignment.
func (DeliverableAssignment) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "dlv"}, timeMixin{}, childScoped()}
}

// Fields of the DeliverableAssignment.
func (DeliverableAssignment) Fields() []ent.Field {
	return []ent.Field{
		ref("requirement_id"),
		ref("submission_id"),
		field.String("contact_id").Optional().Nillable().Immutable().Annotations(gqlName("contact_id")),
		field.Enum("status").Values("outstanding", "uploaded").Default("outstanding"),
		field.String("file_name").Optional().Nillable().Validate(text("File name", 500)),
		field.String("content_type").Optional().Nillable().Validate(text("Content type", 255)),
		field.Int64("size").Optional().Nillable().NonNegative(),
		field.String("storage_key").Optional().Nillable().Validate(text("Storage key", 1024)),
		field.Time("uploaded_at").Optional().Nillable(),
	}
}

// Edges of the DeliverableAssignment.
func (DeliverableAssignment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("requirement", FileRequirement.Type).Ref("assignments").Field("requirement_id").Unique().Required().Immutable(),
		edge.From("submission", Submission.Type).Ref("deliverables").Field("submission_id").Unique().Required().Immutable(),
		edge.From("contact", Contact.Type).Ref("deliverables").Field("contact_id").Unique().Immutable(),
	}
}

// Indexes of the DeliverableAssignment.
func (DeliverableAssignment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("submission_id"),
		// The file jobs look up whether a storage key is in use (docs/files.md).
		index.Fields("storage_key").Annotations(entsql.IndexWhere("storage_key IS NOT NULL")),
		index.Fields("requirement_id", "submission_id").Unique().
			Annotations(entsql.IndexWhere("contact_id IS NULL")).StorageKey("deliverables_session_unique"),
		index.Fields("requirement_id", "submission_id", "contact_id").Unique().
			Annotations(entsql.IndexWhere("contact_id IS NOT NULL")).StorageKey("deliverables_speaker_unique"),
	}
}

// Annotations of the DeliverableAssignment.
func (DeliverableAssignment) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }
