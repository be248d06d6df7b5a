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

// Contact is a person known to one event: a speaker (the common case) or an organizer contact.
// Speakers of sessions must be contacts of the session's event. The email is unique per event.
type Contact struct{ ent.Schema }

// Mixin of the Contact.
func (Contact) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "ctc"}, timeMixin{}, eventScoped()}
}

// Fields of the Contact.
func (Contact) Fields() []ent.Field {
	optionalText := func(name, label string, maxLen int, comment string) ent.Field {
		return field.String(name).Optional().Nillable().Validate(text(label, maxLen)).
			Annotations(gqlName(name), entgql.Skip(entgql.SkipWhereInput)).Comment(comment)
	}
	optionalLink := func(name string, validate func(string) error, comment string) ent.Field {
		return field.String(name).Optional().Nillable().Validate(validate).
			Annotations(gqlName(name), entgql.Skip(entgql.SkipWhereInput)).Comment(comment)
	}
	return []ent.Field{
		ref("event_id", entgql.Skip(entgql.SkipWhereInput)),
		field.String("email").Validate(email).Annotations(entgql.OrderField("EMAIL")).
			Comment("The email address, in lower case; unique within the event."),
		field.String("first_name").Validate(requiredText("First name", 200)).
			Annotations(entgql.OrderField("FIRST_NAME")).
			Comment("The first name, trimmed and never empty."),
		field.String("last_name").Validate(requiredText("Last name", 200)).
			Annotations(entgql.OrderField("LAST_NAME")).
			Comment("The last name, trimmed and never empty."),
		field.Enum("participation").Values("speaker", "submitter", "organizer").Default("speaker").
			Comment("How the contact takes part: speaker (added or invited as one; the default), submitter (sent " +
				"a proposal through a call for proposals and counts as a speaker only once a session of theirs is " +
				"accepted) or organizer."),
		optionalText("title", "Title", 300, "The job title; null when unknown."),
		optionalText("company", "Company", 300, "The company or other affiliation; null when unknown."),
		optionalText("salutation", "Salutation", 100, "How to address the contact (Ms, Mr, …); null when unknown."),
		optionalText("honorific", "Honorific", 100, "An honorific such as Dr or Prof; null when unknown."),
		optionalText("pronouns", "Pronouns", 100, "The contact's pronouns, as they wrote them; null when unknown."),
		optionalText("gender", "Gender", 100, "The contact's gender, as they wrote it; null when unknown."),
		field.Text("bio").Optional().Nillable().Validate(text("Bio", 20000)).
			Annotations(entgql.Skip(entgql.SkipWhereInput)).
			Comment("The speaker's biography, at most 20,000 characters; null when none."),
		optionalLink("headshot_url", fileLink("Headshot URL", 2048), "Where the contact's photo can be downloaded; null when none."),
		optionalText("headshot_key", "Headshot key", 1024,
			"The storage key of the photo uploaded in the organizer app; null when none was uploaded."),
		field.Enum("dietary_requirements").Values("none", "vegetarian", "vegan", "gluten_free", "other").
			Default("none").
			Comment("What the contact can eat; none by default."),
		field.Enum("tshirt_size").Values("XS", "S", "M", "L", "XL", "XXL").Optional().Nillable().
			Comment("The T-shirt size; null when unknown."),
		optionalText("phone", "Phone", 100, "A phone number, as written; null when unknown."),
		optionalLink("linkedin_url", webLink("LinkedIn URL", 2048), "The LinkedIn profile; null when unknown."),
		optionalLink("twitter_url", webLink("Twitter URL", 2048), "The Twitter (X) profile; null when unknown."),
		optionalLink("facebook_url", webLink("Facebook URL", 2048), "The Facebook profile; null when unknown."),
		optionalLink("website_url", webLink("Website URL", 2048), "A personal or company website; null when unknown."),
		field.Time("confirmed_at").Optional().Nillable().
			Comment("When the speaker confirmed: set the first time workflowStatus becomes confirmed or ready, or " +
				"when a session of theirs is accepted in an event with speakerConfirmationEnabled false; never " +
				"cleared. Null until then."),
		field.JSON("custom", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("Further details as a JSON object, such as travelLogistics (set by saveSpeaker); {} when none."),
		// approved_profile holds the last organizer-approved public profile fields.
		field.JSON("approved_profile", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("The public profile fields as organizers last approved them, as a JSON object; {} when none."),
		field.Enum("profile_review_status").Values("approved", "pending_review", "rejected").
			Default("approved").
			Comment("Where the contact's profile stands with the organizers; approved by default."),
		field.Enum("workflow_status").Values("invited", "onboarding", "confirmed", "ready", "declined").
			Default("invited").
			Comment("Where the speaker stands in the organizers' workflow; invited by default."),
	}
}

// Edges of the Contact.
func (Contact) Edges() []ent.Edge {
	skip := entgql.Skip()
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("contacts").Field("event_id").Unique().Required().Immutable().Annotations(skip),
		edge.To("participations", SubmissionParticipant.Type).Annotations(entsql.OnDelete(entsql.Cascade), skip),
		edge.To("submitted", Submission.Type).Annotations(entsql.OnDelete(entsql.SetNull), skip),
		edge.To("tasks", TaskAssignment.Type).Annotations(entsql.OnDelete(entsql.Cascade), skip),
		edge.To("deliverables", DeliverableAssignment.Type).Annotations(entsql.OnDelete(entsql.Cascade), skip),
		edge.To("emails", EmailLog.Type).Annotations(entsql.OnDelete(entsql.SetNull), skip),
		edge.From("resources", Resource.Type).Ref("contacts").Annotations(skip),
	}
}

// Indexes of the Contact.
func (Contact) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("event_id", "email").Unique(),
		index.Fields("event_id", "last_name", "first_name"),
		// The file jobs look up whether a storage key is in use (docs/files.md).
		index.Fields("headshot_key").Annotations(entsql.IndexWhere("headshot_key IS NOT NULL")),
	}
}

// Annotations of the Contact.
func (Contact) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("Contact is a person known to one event: a speaker (the common case) or an organizer " +
			"contact. The speakers of a session are contacts of its event; the email is unique within the " +
			"event. REST: GET /events/{eventId}/speakers/{contactId}."),
	}
}
