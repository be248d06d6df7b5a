package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Resource is information for speakers — a briefing, a recording guide, a venue map — as text
// with an optional link, embed or file, shown to all speakers, to those of some tracks, or to
// named contacts. Drafts are unpublished; the list order is manual.
type Resource struct{ ent.Schema }

// Mixin of the Resource.
func (Resource) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "res"}, timeMixin{}, eventScoped()}
}

// Fields of the Resource.
func (Resource) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("title").Validate(requiredText("Title", 300)),
		field.String("subtitle").Default("").Validate(text("Subtitle", 500)),
		field.Text("body").Default("").Validate(text("Body", 100000)),
		field.Int("position").Default(0),
		field.Bool("published").Default(false),
		field.Enum("audience_mode").Values("all", "tracks", "contacts").Default("all"),
		field.Enum("attachment_kind").Values("link", "file", "embed").Optional().Nillable(),
		field.String("link_url").Optional().Nillable().Validate(webLink("Link", 2048)).Annotations(gqlName("link_url")),
		field.String("embed_url").Optional().Nillable().Validate(webLink("Embed", 2048)).Annotations(gqlName("embed_url")),
		// The file fields are set only for file resources, which the organizer app uploads.
		field.String("file_storage_key").Optional().Nillable().Validate(text("Storage key", 1024)),
		field.String("file_name").Optional().Nillable().Validate(text("File name", 500)),
		field.String("file_content_type").Optional().Nillable().Validate(text("Content type", 255)),
		field.Int64("file_size").Optional().Nillable().NonNegative(),
	}
}

// Edges of the Resource.
func (Resource) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("resources").Field("event_id").Unique().Required().Immutable(),
		// tracks are the audience when audience_mode is tracks; contacts when it is contacts.
		edge.To("tracks", Track.Type),
		edge.To("contacts", Contact.Type),
	}
}

// Indexes of the Resource.
func (Resource) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("event_id", "position"),
		// The file jobs look up whether a storage key is in use (docs/files.md).
		index.Fields("file_storage_key").Annotations(entsql.IndexWhere("file_storage_key IS NOT NULL")),
	}
}

// Annotations of the Resource.
func (Resource) Annotations() []schema.Annotation {
	return []schema.Annotation{
		hidden(),
		// The attachment columns always agree with attachment_kind.
		entsql.Checks(map[string]string{
			"resources_attachment_shape": `(attachment_kind IS NULL AND link_url IS NULL AND embed_url IS NULL AND file_storage_key IS NULL)
 OR (attachment_kind = 'link' AND link_url IS NOT NULL AND embed_url IS NULL AND file_storage_key IS NULL)
 OR (attachment_kind = 'embed' AND embed_url IS NOT NULL AND link_url IS NULL AND file_storage_key IS NULL)
 OR (attachment_kind = 'file' AND file_storage_key IS NOT NULL AND file_name IS NOT NULL AND link_url IS NULL AND embed_url IS NULL)`,
		}),
	}
}

// EmailLog is every email Podium sends, written in the same transaction as the change that causes
// it, together with its delivery job. Its status follows delivery: queued, sending, then sent or
// failed. A row marked sent is never sent again.
type EmailLog struct{ ent.Schema }

// Mixin of the EmailLog.
func (EmailLog) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "eml"}, timeMixin{}, eventScoped()}
}

// Fields of the EmailLog.
func (EmailLog) Fields() []ent.Field {
	noWhere := entgql.Skip(entgql.SkipWhereInput)
	return []ent.Field{
		ref("event_id", noWhere),
		withComment(optionalRef("contact_id", noWhere),
			"The contact the email went to; null when the recipient is not a contact of the event (a reviewer)."),
		withComment(optionalRef("submission_id", noWhere),
			"The submission or session the email is about; null when it is about none."),
		field.Enum("type").Values("confirmation", "magic_link", "accepted", "declined", "cancelled",
			"reinstated", "task_reminder", "calendar_invite", "custom").
			Comment("What the email is about."),
		// template names the template the email was rendered from; several templates share the
		// type custom (a portal invitation, a reviewer invitation).
		field.String("template").Optional().Nillable().Immutable().Annotations(noWhere, entgql.Skip(entgql.SkipType)),
		field.String("recipient").Validate(text("Recipient", 320)).Annotations(noWhere).
			Comment("The address the email is sent to."),
		field.String("subject").Validate(text("Subject", 1000)).Annotations(noWhere).
			Comment("The subject line."),
		field.Text("body").Annotations(noWhere).
			Comment("The plain-text body."),
		field.Text("html_body").Annotations(noWhere).
			Comment("The HTML body."),
		field.String("reply_to").Optional().Nillable().Immutable().Validate(email).Annotations(noWhere).
			Comment("The Reply-To this send asked for; null uses the event's replyToEmail when the email is delivered."),
		field.Bool("ics_attached").Default(false).Annotations(noWhere).
			Comment("Whether a calendar object (an .ics file) is attached."),
		field.Text("ics_content").Optional().Nillable().Annotations(noWhere).
			Comment("The attached iCalendar object (METHOD REQUEST or CANCEL); null when none is attached."),
		field.Int("ics_sequence").Optional().Nillable().Annotations(noWhere).
			Comment("The SEQUENCE of the attached calendar object: 0 for a first invitation, higher for each " +
				"later update or cancellation of the same session; null when none is attached."),
		// status follows delivery: queued (also while waiting to retry, with error set), sending,
		// then sent, or failed once no attempt is left.
		field.Enum("status").Values("queued", "sending", "sent", "failed").Default("queued").
			Comment("Where delivery stands; queued when the email is written."),
		field.String("provider").Optional().Nillable().Annotations(noWhere).
			Comment("What delivered the email: smtp, or log when no SMTP_URL is configured and emails are only " +
				"logged; null before the first delivery attempt."),
		field.String("provider_id").Optional().Nillable().Annotations(gqlName("provider_id"), noWhere).
			Comment("The provider's id of the message; null until it is sent."),
		field.Text("error").Optional().Nillable().Annotations(noWhere).
			Comment("Why the last delivery attempt failed; null when it did not fail."),
		field.Time("sent_at").Optional().Nillable().Annotations(noWhere).
			Comment("When the email was sent; null until then."),
	}
}

// Edges of the EmailLog.
func (EmailLog) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("emails").Field("event_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.From("contact", Contact.Type).Ref("emails").Field("contact_id").Unique().Annotations(entgql.Skip()),
		edge.From("submission", Submission.Type).Ref("emails").Field("submission_id").Unique().
			Annotations(entgql.Skip()),
	}
}

// Indexes of the EmailLog.
func (EmailLog) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("event_id", "created_at"),
		index.Fields("contact_id", "template"),
		index.Fields("submission_id", "type"),
	}
}

// Annotations of the EmailLog.
func (EmailLog) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("email_log"),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("EmailLog is one email Podium sends. It is written, with its delivery job, in the same " +
			"transaction as the change that causes it: a change that fails sends nothing, and one that " +
			"succeeds loses nothing. Delivery runs in the background and is retried. REST: GET " +
			"/events/{eventId}/emails."),
	}
}
