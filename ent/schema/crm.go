package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// The organization's contact book (docs/crm.md): people the organization knows across its events
// (speakers, prospects, sponsors), their tags and notes, their links to event contacts, a sales-
// style pipeline of stages and cards, and saved segments. All of it is tenant data of one
// organization. Like the webhook tables, organization_id has no foreign key: the tenant filter
// fills it from the context on insert, and row-level security checks it.

func init() {
	// The CRM types are tenant data; tenantColumn is built before init functions run.
	for name, t := range map[string]ent.Interface{
		"OrganizationContact": OrganizationContact{}, "OrganizationTag": OrganizationTag{},
		"OrganizationContactTag": OrganizationContactTag{}, "OrganizationContactNote": OrganizationContactNote{},
		"OrganizationContactEvent": OrganizationContactEvent{}, "PipelineStage": PipelineStage{},
		"PipelineCard": PipelineCard{}, "StageHistory": StageHistory{}, "Segment": Segment{},
	} {
		for _, m := range t.Mixin() {
			if _, ok := m.(tenantMixin); ok {
				tenantColumn[name] = "organization_id"
			}
		}
	}
}

// movableRef declares a required foreign-key column that a merge of contacts may change.
func movableRef(name, comment string) ent.Field {
	return field.String(name).Annotations(gqlName(name)).Comment(comment)
}

// crmActor is who made a note or moved a card: an API key (its id) or a signed-in person (their
// user id), and the name shown for them, kept as it was when the record was written.
func crmActor(prefix string) []ent.Field {
	return []ent.Field{
		optionalRef(prefix + "_user_id"),
		optionalRef(prefix + "_api_key_id"),
		field.String(prefix + "_name").Default("").Validate(text("Actor name", 300)).
			Comment("The name shown for the actor: \"API key: <name>\" or the person's name or email, as it was then."),
	}
}

// OrganizationContact is a person in the organization's contact book. The email is unique in the
// organization and stored trimmed and lower-cased.
type OrganizationContact struct{ ent.Schema }

// Mixin of the OrganizationContact.
func (OrganizationContact) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "crm"}, timeMixin{}, tenantMixin{}}
}

// Fields of the OrganizationContact.
func (OrganizationContact) Fields() []ent.Field {
	optional := func(name, label string, maxLen int) ent.Field {
		return field.Text(name).Optional().Nillable().Validate(text(label, maxLen))
	}
	link := func(name string, validate func(string) error) ent.Field {
		return field.Text(name).Optional().Nillable().Validate(validate)
	}
	return []ent.Field{
		field.String("first_name").Validate(text("First name", 200)),
		field.String("last_name").Validate(text("Last name", 200)),
		field.String("email").Validate(requiredText("Email", 320)),
		optional("title", "Title", 300),
		optional("company", "Company", 300),
		optional("bio", "Bio", 20000),
		link("linkedin_url", webLink("LinkedIn URL", 2048)),
		link("twitter_url", webLink("Twitter URL", 2048)),
		link("facebook_url", webLink("Facebook URL", 2048)),
		link("website_url", webLink("Website URL", 2048)),
		link("headshot_url", fileLink("Headshot URL", 2048)),
		field.JSON("custom", map[string]any{}).Default(map[string]any{}).
			Comment("Free-form data kept with the contact (for example from a synced system); {} when empty."),
	}
}

// Edges of the OrganizationContact.
func (OrganizationContact) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tag_links", OrganizationContactTag.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("notes", OrganizationContactNote.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("event_links", OrganizationContactEvent.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("card", PipelineCard.Type).Unique().Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the OrganizationContact.
func (OrganizationContact) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "email").Unique(),
		index.Fields("organization_id", "last_name", "first_name"),
	}
}

// Annotations of the OrganizationContact.
func (OrganizationContact) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("organization_contacts")}
}

// OrganizationTag is a label the organization puts on contacts. Names are unique in the
// organization and case-sensitive.
type OrganizationTag struct{ ent.Schema }

// Mixin of the OrganizationTag.
func (OrganizationTag) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "otag"}, timeMixin{}, tenantMixin{}}
}

// Fields of the OrganizationTag.
func (OrganizationTag) Fields() []ent.Field {
	return []ent.Field{field.String("name").Validate(requiredText("Tag name", 200))}
}

// Edges of the OrganizationTag.
func (OrganizationTag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("contact_links", OrganizationContactTag.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the OrganizationTag.
func (OrganizationTag) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "name").Unique()}
}

// Annotations of the OrganizationTag.
func (OrganizationTag) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("organization_tags")}
}

// OrganizationContactTag puts a tag on a contact.
type OrganizationContactTag struct{ ent.Schema }

// Mixin of the OrganizationContactTag.
func (OrganizationContactTag) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "octg"}, timeMixin{}, tenantMixin{}}
}

// Fields of the OrganizationContactTag.
func (OrganizationContactTag) Fields() []ent.Field {
	return []ent.Field{ref("organization_contact_id"), ref("tag_id")}
}

// Edges of the OrganizationContactTag.
func (OrganizationContactTag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", OrganizationContact.Type).Ref("tag_links").Field("organization_contact_id").
			Unique().Required().Immutable(),
		edge.From("tag", OrganizationTag.Type).Ref("contact_links").Field("tag_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OrganizationContactTag.
func (OrganizationContactTag) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_contact_id", "tag_id").Unique(), index.Fields("tag_id")}
}

// Annotations of the OrganizationContactTag.
func (OrganizationContactTag) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("organization_contact_tags")}
}

// OrganizationContactNote is a note about a contact. Notes are never edited.
type OrganizationContactNote struct{ ent.Schema }

// Mixin of the OrganizationContactNote.
func (OrganizationContactNote) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "onote"}, timeMixin{}, tenantMixin{}}
}

// Fields of the OrganizationContactNote.
func (OrganizationContactNote) Fields() []ent.Field {
	return append([]ent.Field{
		movableRef("organization_contact_id", "The id of the contact the note is about; a merge moves it to the surviving contact."),
		field.Text("body").Validate(text("Note", 20000)),
	}, crmActor("author")...)
}

// Edges of the OrganizationContactNote.
func (OrganizationContactNote) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", OrganizationContact.Type).Ref("notes").Field("organization_contact_id").
			Unique().Required(),
	}
}

// Indexes of the OrganizationContactNote.
func (OrganizationContactNote) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_contact_id", "created_at")}
}

// Annotations of the OrganizationContactNote.
func (OrganizationContactNote) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("organization_contact_notes")}
}

// OrganizationContactEvent links a contact of the book to the event contact (speaker or
// organizer) it was copied into. One link per contact and event.
type OrganizationContactEvent struct{ ent.Schema }

// Mixin of the OrganizationContactEvent.
func (OrganizationContactEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ocev"}, timeMixin{}, tenantMixin{}}
}

// Fields of the OrganizationContactEvent.
func (OrganizationContactEvent) Fields() []ent.Field {
	return []ent.Field{
		ref("organization_contact_id"),
		withComment(field.String("contact_id").Annotations(gqlName("contact_id")),
			"The id of the event contact the book's contact was copied into."),
		ref("event_id"),
		field.String("role").Validate(requiredText("Role", 50)).
			Comment("How the person takes part in the event: speaker or organizer."),
		field.String("status").Default("invited").Validate(requiredText("Status", 50)).
			Comment("Where the link stands; Podium writes invited."),
	}
}

// Edges of the OrganizationContactEvent.
func (OrganizationContactEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization_contact", OrganizationContact.Type).Ref("event_links").
			Field("organization_contact_id").Unique().Required().Immutable(),
		edge.To("contact", Contact.Type).Field("contact_id").Unique().Required().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the OrganizationContactEvent.
func (OrganizationContactEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_contact_id", "event_id").Unique(),
		index.Fields("event_id"),
		index.Fields("contact_id"),
	}
}

// Annotations of the OrganizationContactEvent.
func (OrganizationContactEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("organization_contact_events")}
}

// PipelineStage is a column of the organization's pipeline.
type PipelineStage struct{ ent.Schema }

// Mixin of the PipelineStage.
func (PipelineStage) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "stage"}, timeMixin{}, tenantMixin{}}
}

// Fields of the PipelineStage.
func (PipelineStage) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(requiredText("Stage name", 200)),
		field.Enum("semantic_status").Values("open", "won", "lost").
			Comment("What reaching the stage means: still open, won or lost."),
		field.Int("position").Comment("The stage's place in the pipeline, smallest first."),
	}
}

// Edges of the PipelineStage.
func (PipelineStage) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("cards", PipelineCard.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the PipelineStage.
func (PipelineStage) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "name").Unique(),
		index.Fields("organization_id", "position"),
	}
}

// Annotations of the PipelineStage.
func (PipelineStage) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("crm_pipeline_stages")}
}

// PipelineCard places a contact in a stage. A contact has at most one card.
type PipelineCard struct{ ent.Schema }

// Mixin of the PipelineCard.
func (PipelineCard) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "card"}, timeMixin{}, tenantMixin{}}
}

// Fields of the PipelineCard.
func (PipelineCard) Fields() []ent.Field {
	return []ent.Field{
		movableRef("organization_contact_id", "The id of the card's contact; a merge moves it to the surviving contact."),
		withComment(field.String("stage_id").Annotations(gqlName("stage_id")), "The id of the stage the card is in."),
		optionalRef("owner_user_id"),
		field.Text("note").Optional().Nillable().Validate(text("Note", 20000)),
	}
}

// Edges of the PipelineCard.
func (PipelineCard) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", OrganizationContact.Type).Ref("card").Field("organization_contact_id").
			Unique().Required(),
		edge.From("stage", PipelineStage.Type).Ref("cards").Field("stage_id").Unique().Required(),
		edge.To("history", StageHistory.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the PipelineCard.
func (PipelineCard) Indexes() []ent.Index {
	return []ent.Index{index.Fields("stage_id")}
}

// Annotations of the PipelineCard.
func (PipelineCard) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("crm_pipeline_cards")}
}

// StageHistory records a card entering a stage: where it came from (null for a new card), where it
// went, who moved it and when. The stage names are kept as they were, so the history still reads
// after a stage is renamed or deleted.
type StageHistory struct{ ent.Schema }

// Mixin of the StageHistory.
func (StageHistory) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "stgh"}, timeMixin{}, tenantMixin{}}
}

// Fields of the StageHistory.
func (StageHistory) Fields() []ent.Field {
	return append([]ent.Field{
		withComment(field.String("card_id").Annotations(gqlName("card_id")), "The id of the card that moved."),
		optionalRef("from_stage_id"),
		field.String("from_stage_name").Optional().Nillable().Validate(text("Stage name", 200)),
		optionalRef("to_stage_id"),
		field.String("to_stage_name").Validate(text("Stage name", 200)),
	}, crmActor("actor")...)
}

// Edges of the StageHistory.
func (StageHistory) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("card", PipelineCard.Type).Ref("history").Field("card_id").Unique().Required(),
	}
}

// Indexes of the StageHistory.
func (StageHistory) Indexes() []ent.Index {
	return []ent.Index{index.Fields("card_id", "created_at")}
}

// Annotations of the StageHistory.
func (StageHistory) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("crm_stage_history")}
}

// Segment is a saved filter over the organization's contacts, evaluated when it is used. Names are
// unique in the organization; saving under an existing name replaces its filter.
type Segment struct{ ent.Schema }

// Mixin of the Segment.
func (Segment) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "seg"}, timeMixin{}, tenantMixin{}}
}

// Fields of the Segment.
func (Segment) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(requiredText("Segment name", 200)),
		field.JSON("filter", map[string]any{}).Default(map[string]any{}).
			Comment("The filter as saved: search, company, title and tagIds; other keys are kept as sent."),
	}
}

// Indexes of the Segment.
func (Segment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "name").Unique()}
}

// Annotations of the Segment.
func (Segment) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("crm_segments")}
}
