package schema

import (
	"context"
	"errors"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	gen "github.com/podium/podium/ent"
	"github.com/podium/podium/ent/hook"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/cfpform"
	"github.com/podium/podium/ent/submission"
)

// Form is a call-for-proposals form. Submissions that came through one carry it as their source;
// manual sessions have none. An event's default form is created on first use.
type Form struct{ ent.Schema }

// Mixin of the Form.
func (Form) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "form"}, timeMixin{}, eventScoped()}
}

// Fields of the Form.
func (Form) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("internal_name").Validate(requiredText("Form name", 200)),
		field.String("external_title").Validate(requiredText("Form title", 200)),
		field.Enum("status").Values("open", "closed").Default("open"),
		// is_default marks the form that receives proposals created through the API.
		field.Bool("is_default").Default(false),
		field.Time("close_date").Optional().Nillable(),
		field.Int("submission_limit").Optional().Nillable().Validate(atLeast("submissionLimit", 1)),
		// opens_at: before it the form takes no proposals; null means open from its creation.
		field.Time("opens_at").Optional().Nillable(),
		// The tracks, formats and levels the form offers; empty offers all of the event's. The
		// database defaults them too, for hand-written inserts (seeds, fixtures).
		field.Strings("track_ids").Default([]string{}).Annotations(emptyList),
		field.Strings("format_ids").Default([]string{}).Annotations(emptyList),
		field.Strings("level_ids").Default([]string{}).Annotations(emptyList),
		// questions are the form's own questions; replies land in submissions.answers.
		field.JSON("questions", []cfpform.Question{}).Default([]cfpform.Question{}).Annotations(emptyList),
	}
}

// emptyList is the database default of a form's JSON list columns.
var emptyList = entsql.DefaultExpr("'[]'::jsonb")

// Edges of the Form.
func (Form) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("forms").Field("event_id").Unique().Required().Immutable(),
		// A form with submissions is never deleted (the operation refuses it, and the database's NO
		// ACTION does too): a submission without its form would read as a manual session. Deleting
		// the event removes both together.
		edge.To("submissions", Submission.Type).Annotations(entsql.OnDelete(entsql.NoAction)),
	}
}

// Indexes of the Form.
func (Form) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("event_id"),
		// At most one default form per event.
		index.Fields("event_id").Unique().Annotations(entsql.IndexWhere("is_default")).
			StorageKey("forms_event_default"),
	}
}

// Annotations of the Form.
func (Form) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// Submission is a proposal. A session is a submission whose status is accepted (its id is the
// submission id); a manual session is an accepted submission without a source form. Cancellation
// does not change the status: cancelled_at and cancelled_by record it, and the session stays in
// the list with its cause.
type Submission struct{ ent.Schema }

// Mixin of the Submission.
func (Submission) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "sub"}, timeMixin{}, eventScoped()}
}

// Fields of the Submission.
func (Submission) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		// number is n of the code SESS-n: 1 + the highest number used in the event, drafts
		// included.
		field.Int("number").Immutable().Positive(),
		field.String("code").Immutable().Validate(requiredText("Code", 40)),
		field.Enum("status").Values("draft", "pending", "maybe", "accepted", "declined", "withdrawn"),
		optionalRef("source_form_id"),
		optionalRef("submitter_contact_id"),
		field.String("title").Validate(requiredText("Title", 500)),
		field.Text("description").Default("").Validate(text("Description", 50000)),
		optionalRef("format_id"),
		optionalRef("level_id"),
		field.String("language").Default("en").Validate(requiredText("Language", 35)),
		field.Time("starts_at").Optional().Nillable(),
		field.Time("ends_at").Optional().Nillable(),
		optionalRef("room_id"),
		// ics_sequence is the SEQUENCE of the session's calendar invites, bumped when a sent invite
		// changes.
		field.Int("ics_sequence").Default(0).NonNegative(),
		// schedule_dirty says the slot changed since calendar invites were last sent.
		field.Bool("schedule_dirty").Default(false),
		field.Int("capacity").Optional().Nillable().Validate(atLeast("capacity", 0)),
		field.Int("ceu_credits").Optional().Nillable().Validate(atLeast("ceuCredits", 0)),
		field.String("client_session_id").Optional().Nillable().Validate(text("Client session id", 200)),
		field.Time("notified_at").Optional().Nillable(),
		// programmed_as says what an acceptance changed of the proposal's format and track
		// (decideSubmissions' programFormatId and programTrackId): "Workshop (90 min), track Cloud".
		// The decision email tells the speaker; a later decision clears it.
		field.String("programmed_as").Optional().Nillable().Validate(text("Programmed as", 500)).
			Annotations(hidden()),
		field.Time("submitted_at").Optional().Nillable(),
		// proposal_key is the key a proposal page sends with a new proposal: the same key again (a
		// double submit, a reloaded page) finds the proposal it created instead of a second one.
		field.String("proposal_key").Optional().Nillable().Validate(text("Proposal key", 100)),
		field.JSON("answers", map[string]any{}).Default(map[string]any{}),
		// co_speaker_invitations are the co-speakers the submitter named: each a speaker only once
		// they accept (docs/cfp.md), so no address typed by a stranger becomes a speaker or a
		// contact of the event by itself.
		field.JSON("co_speaker_invitations", []cfpform.Invitation{}).Default([]cfpform.Invitation{}).
			Annotations(emptyList),
		// approved_snapshot is the content last approved for publication.
		field.JSON("approved_snapshot", map[string]any{}).Default(map[string]any{}),
		field.Enum("content_review_status").Values("approved", "pending_review", "rejected").
			Default("approved"),
		field.Time("cancelled_at").Optional().Nillable(),
		field.Enum("cancelled_by").Values("organizer", "speaker").Optional().Nillable(),
	}
}

// Edges of the Submission.
func (Submission) Edges() []ent.Edge {
	cascade := func(name string, t any) ent.Edge {
		return edge.To(name, t).Annotations(entsql.OnDelete(entsql.Cascade))
	}
	return []ent.Edge{
		edge.From("event", Event.Type).Ref("submissions").Field("event_id").Unique().Required().Immutable(),
		edge.From("source_form", Form.Type).Ref("submissions").Field("source_form_id").Unique(),
		edge.From("submitter", Contact.Type).Ref("submitted").Field("submitter_contact_id").Unique(),
		edge.From("format", Format.Type).Ref("submissions").Field("format_id").Unique(),
		edge.From("level", Level.Type).Ref("submissions").Field("level_id").Unique(),
		edge.From("room", Room.Type).Ref("submissions").Field("room_id").Unique(),
		edge.To("tracks", Track.Type),
		edge.To("tags", Tag.Type),
		cascade("participants", SubmissionParticipant.Type),
		cascade("tasks", TaskAssignment.Type),
		cascade("deliverables", DeliverableAssignment.Type),
		cascade("timeline", TimelineEntry.Type),
		cascade("review_assignments", ReviewAssignment.Type),
		cascade("ai_results", AIReviewResult.Type),
		edge.To("emails", EmailLog.Type).Annotations(entsql.OnDelete(entsql.SetNull)),
	}
}

// Indexes of the Submission.
func (Submission) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("event_id", "code").Unique(),
		index.Fields("event_id", "number").Unique(),
		index.Fields("event_id", "status"),
		index.Fields("event_id", "room_id", "starts_at"),
		index.Fields("event_id", "proposal_key").Unique(),
	}
}

// Annotations of the Submission.
func (Submission) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }

// Hooks of the Submission.
func (Submission) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(keepCFPSessions, ent.OpDelete|ent.OpDeleteOne)}
}

// ErrSessionKeepsHistory is what deleting a session that came from a call-for-proposals
// submission answers, whoever asks. The deleteSession operation refuses it first, in the
// contract's words (docs/rest-api.md §4, DELETE E/sessions/{id}); reaching this error means a
// caller below the operations — the command line, a seed, a job — tried it.
var ErrSessionKeepsHistory = errors.New("schema: a session from a call-for-proposals submission keeps " +
	"its history and is never deleted; cancel it instead")

// keepCFPSessions refuses to delete a session that came from a call-for-proposals form: its
// reviews, decision, emails and timeline are the record of how it was chosen, so it is cancelled
// instead. Everything else can still be deleted: manual sessions (a session created directly has
// no source form), drafts and other submissions that are not sessions, and whole events, whose
// submissions go through the database's ON DELETE CASCADE, which no hook sees.
func keepCFPSessions(next ent.Mutator) ent.Mutator {
	return hook.SubmissionFunc(func(ctx context.Context, m *gen.SubmissionMutation) (ent.Value, error) {
		ids, err := m.IDs(ctx)
		if err != nil {
			return nil, err
		}
		if len(ids) > 0 {
			kept, err := m.Client().Submission.Query().Where(submission.IDIn(ids...), cfpSession()).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if kept {
				return nil, ErrSessionKeepsHistory
			}
		}
		// The statement itself spares CFP sessions too, so a submission accepted between the check
		// and the delete is kept.
		m.Where(submission.Not(cfpSession()))
		return next.Mutate(ctx, m)
	})
}

// cfpSession selects sessions (accepted submissions) that came through a call-for-proposals form.
func cfpSession() predicate.Submission {
	return submission.And(submission.StatusEQ(submission.StatusAccepted), submission.SourceFormIDNotNil())
}

// SubmissionParticipant links a contact to a submission with a role ("speaker" for manual
// sessions) and a position that orders the speakers.
type SubmissionParticipant struct{ ent.Schema }

// Mixin of the SubmissionParticipant.
func (SubmissionParticipant) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "spt"}, timeMixin{}, childScoped()}
}

// Fields of the SubmissionParticipant.
func (SubmissionParticipant) Fields() []ent.Field {
	return []ent.Field{
		ref("submission_id"),
		ref("contact_id"),
		field.String("role").Default("speaker").Validate(requiredText("Role", 100)),
		field.Int("position").Default(1),
	}
}

// Edges of the SubmissionParticipant.
func (SubmissionParticipant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("submission", Submission.Type).Ref("participants").Field("submission_id").Unique().Required().Immutable(),
		edge.From("contact", Contact.Type).Ref("participations").Field("contact_id").Unique().Required().Immutable(),
	}
}

// Indexes of the SubmissionParticipant.
func (SubmissionParticipant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("submission_id", "contact_id").Unique(),
		index.Fields("contact_id"),
	}
}

// Annotations of the SubmissionParticipant.
func (SubmissionParticipant) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden()}
}

// TimelineEntry is one line of a session's history. Writes made with an API key record the key
// as the actor.
type TimelineEntry struct{ ent.Schema }

// Mixin of the TimelineEntry.
func (TimelineEntry) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "tl"}, timeMixin{}, childScoped()}
}

// Fields of the TimelineEntry.
func (TimelineEntry) Fields() []ent.Field {
	return []ent.Field{
		ref("submission_id"),
		field.Enum("kind").Values("created", "submitted", "status_changed", "decided", "cancelled",
			"reinstated", "scheduled", "content_approved", "content_edited", "email", "file", "task",
			"speaker_confirmed", "speaker_declined", "informed"),
		field.String("label").Validate(requiredText("Label", 500)),
		field.Text("detail").Optional().Nillable().Validate(text("Detail", 20000)),
		field.String("actor_name").Validate(text("Actor name", 300)),
		optionalRef("actor_api_key_id"),
		optionalRef("actor_user_id"),
		field.Time("at").Immutable(),
	}
}

// Edges of the TimelineEntry.
func (TimelineEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("submission", Submission.Type).Ref("timeline").Field("submission_id").Unique().Required().Immutable(),
	}
}

// Indexes of the TimelineEntry.
func (TimelineEntry) Indexes() []ent.Index {
	return []ent.Index{index.Fields("submission_id", "at")}
}

// Annotations of the TimelineEntry.
func (TimelineEntry) Annotations() []schema.Annotation { return []schema.Annotation{hidden()} }
