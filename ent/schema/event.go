package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/chaser"
)

// Event is a conference, summit or meetup run by an organization. Everything else (library,
// speakers, submissions, reviews, resources, agenda, emails) belongs to an event.
type Event struct{ ent.Schema }

// Mixin of the Event.
func (Event) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "evt"}, timeMixin{}, orgScoped()}
}

// Fields of the Event.
func (Event) Fields() []ent.Field {
	return []ent.Field{
		ref("organization_id"),
		field.String("name").Validate(requiredText("Event name", 200)).
			Annotations(entgql.OrderField("NAME")).
			Comment("The event's name, at most 200 characters."),
		// slug is unique within the organization (see Indexes).
		field.String("slug").Validate(requiredText("Slug", 220)).
			Comment("The event's URL name, made from its name when it is created (lower case, runs of other " +
				"characters as -) and kept unique within the organization by a numeric suffix. Renaming the " +
				"event does not change it."),
		field.String("tagline").Optional().Nillable().Validate(text("Tagline", 500)).
			Comment("A one-line summary, at most 500 characters; null when not set."),
		field.Text("description").Optional().Nillable().Validate(text("Description", 20000)).
			Comment("A longer description, at most 20,000 characters; null when not set."),
		field.Enum("type").Values("conference", "summit", "meetup").Default("conference").
			Comment("The kind of event; conference by default."),
		field.String("website_url").Optional().Nillable().Validate(webLink("Website URL", 2048)).
			Annotations(gqlName("website_url")).
			Comment("The event's website; null when not set."),
		field.String("location").Optional().Nillable().Validate(text("Location", 500)).
			Comment("Where the event takes place, as free text; null when not set."),
		field.String("timezone").Validate(timezone).
			Comment("The IANA time zone the event runs in, such as Europe/Berlin. Event days on the agenda and " +
				"the times written in emails are in this zone."),
		field.Time("starts_at").Annotations(entgql.OrderField("STARTS_AT")).
			Comment("When the event starts."),
		field.Time("ends_at").
			Comment("When the event ends; always after startsAt."),
		field.Text("theme").Optional().Nillable().Validate(text("Theme", 1000)).
			Comment("The look of the event's pages as the organizer app stores it, at most 1000 characters; " +
				"null when not set."),
		field.String("logo_url").Optional().Nillable().Validate(fileLink("Logo URL", 2048)).
			Annotations(gqlName("logo_url")).
			Comment("Where the event's logo can be downloaded; null when it has none."),
		field.String("logo_key").Optional().Nillable().Validate(text("Logo key", 1024)).
			Comment("The storage key of the logo uploaded in the organizer app; null when none was uploaded."),
		field.String("background_url").Optional().Nillable().Validate(fileLink("Background URL", 2048)).
			Annotations(gqlName("background_url")).
			Comment("Where the event's background image can be downloaded; null when it has none."),
		field.String("background_key").Optional().Nillable().Validate(text("Background key", 1024)).
			Comment("The storage key of the background image uploaded in the organizer app; null when none was uploaded."),
		field.String("reply_to_email").Optional().Nillable().Validate(email).
			Comment("Where replies to the event's emails go (their Reply-To), unless a send names its own; " +
				"null sends them to the sending address."),
		field.Int("default_submission_limit").Default(3).
			Validate(atLeast("defaultSubmissionLimit", 1)).
			Comment("How many proposals one speaker may send through a call-for-proposals form that sets no " +
				"limit of its own: a whole number, at least 1; 3 by default. The forms apply it; createSubmission " +
				"does not."),
		field.Bool("speaker_confirmation_enabled").Default(true).
			Comment("Whether speakers confirm their sessions themselves (true, the default). When false, " +
				"accepting a submission confirms its speakers at once: their confirmedAt is set."),
		field.Bool("speaker_content_locked").Default(false).
			Comment("Whether the organizers have locked the content of accepted sessions: while false (the " +
				"default) their speakers may change title and description, the change waiting for the " +
				"organizers' review; while true they may not. lockSpeakerContent and unlockSpeakerContent set it."),
		field.Time("agenda_published_at").Optional().Nillable().
			Comment("When the agenda was last published; null while it is not published."),
		field.JSON("published_agenda", []agenda.Entry{}).Default([]agenda.Entry{}).
			Annotations(entgql.Type("[AgendaEntry!]"), entgql.Skip(entgql.SkipWhereInput)).
			Comment("The published agenda: the scheduled sessions as they were at the last publishAgenda, by " +
				"start time. Later edits show only once the agenda is published again; empty while it is " +
				"not published."),
		field.JSON("published_blocks", []agenda.Block{}).Default([]agenda.Block{}).
			Annotations(entgql.Type("[PublishedAgendaBlock!]"), entgql.Skip(entgql.SkipWhereInput), emptyList).
			Comment("The published agenda's blocks (breaks, meals, registration, socials) as they were at the " +
				"last publishAgenda, by start time; empty while it is not published."),
		field.JSON("chasers", chaser.Settings{}).Default(chaser.Settings{}).
			Annotations(entgql.Skip(), entsql.DefaultExpr("'{}'::jsonb")).
			Comment("The event's chasers (docs/chasers.md): reminders Podium sends by itself."),
		field.Bool("agenda_dirty").Default(false).
			Comment("Whether the schedule changed since the agenda was last published, or the agenda was " +
				"unpublished; false by default."),
	}
}

// Edges of the Event.
func (Event) Edges() []ent.Edge {
	cascade := func(name string, t any) ent.Edge {
		return edge.To(name, t).Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip())
	}
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("events").
			Field("organization_id").Unique().Required().Immutable().Annotations(entgql.Skip()),
		cascade("members", EventMember.Type),
		cascade("tracks", Track.Type),
		cascade("formats", Format.Type),
		cascade("rooms", Room.Type),
		cascade("tags", Tag.Type),
		cascade("levels", Level.Type),
		cascade("forms", Form.Type),
		cascade("contacts", Contact.Type),
		cascade("submissions", Submission.Type),
		cascade("task_templates", TaskTemplate.Type),
		cascade("file_requirements", FileRequirement.Type),
		cascade("review_rounds", ReviewRound.Type),
		cascade("resources", Resource.Type),
		cascade("emails", EmailLog.Type),
	}
}

// Indexes of the Event.
func (Event) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "slug").Unique(),
		index.Fields("organization_id", "starts_at"),
		// The file jobs look up whether a storage key is in use (docs/files.md).
		index.Fields("logo_key").Annotations(entsql.IndexWhere("logo_key IS NOT NULL")),
		index.Fields("background_key").Annotations(entsql.IndexWhere("background_key IS NOT NULL")),
	}
}

// Annotations of the Event.
func (Event) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField().Description("The caller's events, by start time unless orderBy says otherwise. " +
			"REST: GET /events."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("Event is a conference, summit or meetup run by an organization. Its library, " +
			"speakers, submissions and sessions, review rounds, resources, agenda and emails belong to it. " +
			"REST: GET /events/{eventId}."),
	}
}

// EventMember gives a user a role in one event: admin, or reviewer in its review rounds.
type EventMember struct{ ent.Schema }

// Mixin of the EventMember.
func (EventMember) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "emb"}, timeMixin{}, eventScoped()}
}

// Fields of the EventMember.
func (EventMember) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		ref("user_id"),
		field.Enum("role").Values("admin", "reviewer"),
	}
}

// Edges of the EventMember.
func (EventMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("members").Field("event_id").Unique().Required().Immutable(),
		edge.From("user", User.Type).Ref("event_memberships").Field("user_id").Unique().Required().Immutable(),
		// tracks are the reviewer's tracks: auto-distribution prefers reviewers whose tracks meet
		// a submission's.
		edge.To("tracks", Track.Type),
		edge.To("round_memberships", ReviewRoundMember.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("review_assignments", ReviewAssignment.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the EventMember.
func (EventMember) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "user_id").Unique()}
}

// Annotations of the EventMember.
func (EventMember) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }
