package operation

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

var errSubmissionNotFound = apperr.NotFound("Submission")

// defaultForm returns the event's default call-for-proposals form, creating it on first use. It
// receives the proposals brought in through the API.
func defaultForm(ctx context.Context, c *ent.Client, eventID string) (*ent.Form, error) {
	f, err := c.Form.Query().Where(form.EventID(eventID), form.IsDefault(true)).Only(ctx)
	if ent.IsNotFound(err) {
		return c.Form.Create().SetEventID(eventID).SetInternalName("Call for proposals").
			SetExternalTitle("Call for proposals").SetIsDefault(true).Save(ctx)
	}
	return f, err
}

// CreateSubmission brings in a proposal from another tool (docs/rest-api.md: POST E/submissions).
func (r *Service) CreateSubmission(ctx context.Context, eventID string, in model.CreateSubmissionInput) (*model.SessionRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.SessionRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		title := strings.TrimSpace(in.Title)
		if title == "" {
			return nil, apperr.Invalid("Enter a title")
		}
		status := model.SubmissionStatusPending
		if in.Status != nil {
			status = *in.Status
		}
		if status != model.SubmissionStatusPending && status != model.SubmissionStatusDraft {
			return nil, apperr.Invalid("status must be draft or pending")
		}
		speakers, err := speakersOf(ctx, c, ev.ID, in.SpeakerIds, "Every submission must have a speaker")
		if err != nil {
			return nil, err
		}
		if err := formatOf(ctx, c, ev.ID, in.FormatID); err != nil {
			return nil, err
		}
		trackIDs := slices.Compact(slices.Sorted(slices.Values(in.TrackIds)))
		if len(trackIDs) > 0 {
			n, err := c.Track.Query().Where(track.IDIn(trackIDs...), track.EventID(ev.ID)).Count(ctx)
			if err != nil {
				return nil, err
			}
			if n != len(trackIDs) {
				return nil, apperr.Invalid("Choose tracks from this event")
			}
		}
		f, err := defaultForm(ctx, c, ev.ID)
		if err != nil {
			return nil, err
		}
		n, err := nextNumber(ctx, c, ev.ID)
		if err != nil {
			return nil, err
		}
		description := ""
		if in.Description != nil {
			description = *in.Description
		}
		answers := in.Answers
		if answers == nil {
			answers = map[string]any{}
		}
		create := c.Submission.Create().
			SetEventID(ev.ID).SetNumber(n).SetCode(sessionCode(n)).
			SetStatus(submission.Status(status)).SetSourceFormID(f.ID).SetSubmitterContactID(speakers[0]).
			SetTitle(title).SetDescription(description).SetNillableFormatID(in.FormatID).
			SetAnswers(answers).AddTrackIDs(trackIDs...)
		if status == model.SubmissionStatusPending {
			// Submitted as it is created: the timeline lists the two at the same moment.
			now := time.Now()
			create.SetCreatedAt(now).SetSubmittedAt(now)
		}
		s, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.emitWhen(ctx, status == model.SubmissionStatusPending, hookSubmissionSubmitted, hookData{"eventId": ev.ID, "submissionId": s.ID, "title": s.Title}); err != nil {
			return nil, err
		}
		if err := setParticipants(ctx, c, s.ID, speakers, true); err != nil {
			return nil, err
		}
		return toSessionRecord(s), nil
	})
}

// submissionFilter selects the submissions loadSubmissions reads.
type submissionFilter struct {
	// ids, when set, are the submissions to read, of any source; otherwise every submission that
	// came through a call-for-proposals form.
	ids []string
}

// loadSubmissions reads submissions of the event as the review desk shows them, ordered by
// number, with five queries whatever their number.
func (r *Service) loadSubmissions(ctx context.Context, eventID string, f submissionFilter) ([]*model.Submission, error) {
	return r.eventsSubmissions(ctx, []string{eventID}, f)
}

// eventsSubmissions is loadSubmissions for the events at once, still five queries: each event's
// submissions by number, the events one after another. A page of events (Event.submissions) and
// the submissions of a page of sessions across events (Session.submission) read through it.
func (r *Service) eventsSubmissions(ctx context.Context, events []string, f submissionFilter) ([]*model.Submission, error) {
	q := r.sql(ctx)
	where := "s.event_id = ANY($1) AND NOT " + manualSQL + " AND $2::text[] IS NULL"
	if f.ids != nil {
		where = "s.event_id = ANY($1) AND s.id = ANY($2)"
	}
	rows, err := q.Query(ctx, `
SELECT s.event_id, s.id, s.code, s.status, s.cancelled_at, s.cancelled_by, s.title, s.description, fm.name,
       `+manualSQL+`, s.submitted_at, s.created_at, s.notified_at, s.answers
FROM submissions s LEFT JOIN formats fm ON fm.id = s.format_id
WHERE `+where+` ORDER BY s.event_id, s.number`, events, f.ids)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*model.Submission, error) {
		s := &model.Submission{Tracks: []agenda.Track{}, Tags: []*model.TagSummary{},
			Speakers: []*model.SubmissionSpeaker{}, ReviewComments: []string{}}
		var status string
		var cancelledBy *string
		var manual bool
		var cancelledAt, submittedAt, notifiedAt *time.Time
		var createdAt time.Time
		if err := row.Scan(&s.EventID, &s.ID, &s.Code, &status, &cancelledAt, &cancelledBy, &s.Title, &s.Description,
			&s.Format, &manual, &submittedAt, &createdAt, &notifiedAt, &s.FormAnswers); err != nil {
			return nil, err
		}
		s.Status = model.SubmissionStatus(status)
		s.Source = sourceOf(manual)
		if cancelledBy != nil {
			s.CancelledBy = new(model.SessionCancelledBy(*cancelledBy))
		}
		s.CancelledAt, s.SubmittedAt, s.NotifiedAt = scalar.AtPtr(cancelledAt), scalar.AtPtr(submittedAt), scalar.AtPtr(notifiedAt)
		s.DecisionSent = decisionSent(manual, notifiedAt)
		s.CreatedAt = scalar.At(createdAt)
		return s, nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	byID := make(map[string]*model.Submission, len(out))
	for _, s := range out {
		byID[s.ID] = s
	}
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.ID
	}
	// Tracks, tags, speakers and review figures, each in one query.
	if err := eachRow(ctx, q, `SELECT st.submission_id, t.id, t.name, t.color FROM submission_tracks st
JOIN tracks t ON t.id = st.track_id WHERE st.submission_id = ANY($1) ORDER BY t.position, t.name, t.id`, ids,
		func(scan func(...any) error) error {
			var id string
			var t agenda.Track
			if err := scan(&id, &t.ID, &t.Name, &t.Color); err != nil {
				return err
			}
			byID[id].Tracks = append(byID[id].Tracks, t)
			return nil
		}); err != nil {
		return nil, err
	}
	if err := eachRow(ctx, q, `SELECT st.submission_id, t.id, t.name FROM submission_tags st
JOIN tags t ON t.id = st.tag_id WHERE st.submission_id = ANY($1) ORDER BY t.position, t.name, t.id`, ids,
		func(scan func(...any) error) error {
			var id string
			t := &model.TagSummary{}
			if err := scan(&id, &t.ID, &t.Name); err != nil {
				return err
			}
			byID[id].Tags = append(byID[id].Tags, t)
			return nil
		}); err != nil {
		return nil, err
	}
	if err := eachRow(ctx, q, `SELECT p.submission_id, c.id, c.first_name, c.last_name, c.email, p.role, p.position,
       coalesce(c.bio, '') <> '', c.headshot_url, c.confirmed_at
FROM submission_participants p JOIN contacts c ON c.id = p.contact_id
WHERE p.submission_id = ANY($1) ORDER BY p.submission_id, p.position, c.id`, ids,
		func(scan func(...any) error) error {
			var id, first, last string
			var confirmedAt *time.Time
			sp := &model.SubmissionSpeaker{}
			if err := scan(&id, &sp.ID, &first, &last, &sp.Email, &sp.Role, &sp.Position, &sp.BioPresent,
				&sp.HeadshotURL, &confirmedAt); err != nil {
				return err
			}
			sp.Name, sp.ConfirmedAt = fullName(first, last), scalar.AtPtr(confirmedAt)
			byID[id].Speakers = append(byID[id].Speakers, sp)
			return nil
		}); err != nil {
		return nil, err
	}
	if err := eachRow(ctx, q, `SELECT a.submission_id, count(DISTINCT a.id), avg(ans.numeric_value),
       coalesce(array_agg(ans.text_value ORDER BY ans.created_at) FILTER (WHERE coalesce(ans.text_value, '') <> ''), '{}')
FROM review_assignments a LEFT JOIN review_answers ans ON ans.assignment_id = a.id
WHERE a.submission_id = ANY($1) AND a.status = 'completed' GROUP BY a.submission_id`, ids,
		func(scan func(...any) error) error {
			var id string
			var count int
			var rating *float64
			var comments []string
			if err := scan(&id, &count, &rating, &comments); err != nil {
				return err
			}
			s := byID[id]
			s.ReviewCount, s.Rating, s.ReviewComments = count, rating, comments
			return nil
		}); err != nil {
		return nil, err
	}
	return out, nil
}

// SubmissionList answers Event.submissions: the call-for-proposals submissions, with the tracks,
// formats and tags used across all of them, then filtered by status and, when informed is set, by
// whether their decision was emailed (false: decided, not yet informed; docs/decisions.md).
//
// Under a page of events the events' submissions are read together (eventLoaders.submissions).
func (r *Service) SubmissionList(ctx context.Context, ev *ent.Event, status *model.SubmissionStatus, informed *bool) (*model.SubmissionList, error) {
	var all []*model.Submission
	var err error
	if underList(ctx) {
		all, err = loadEvent(ctx, r.eventLoaders(ctx).submissions, ev.ID, func(e string) string { return e })
	} else {
		all, err = r.loadSubmissions(ctx, ev.ID, submissionFilter{})
	}
	if err != nil {
		return nil, err
	}
	list := &model.SubmissionList{Submissions: []*model.Submission{}, Tracks: []*agenda.Track{}, Formats: []string{}, Tags: []*model.TagSummary{}}
	seen := map[string]bool{}
	for _, s := range all {
		for i := range s.Tracks {
			if !seen[s.Tracks[i].ID] {
				seen[s.Tracks[i].ID] = true
				list.Tracks = append(list.Tracks, &s.Tracks[i])
			}
		}
		for _, t := range s.Tags {
			if !seen[t.ID] {
				seen[t.ID] = true
				list.Tags = append(list.Tags, t)
			}
		}
		if s.Format != nil && !slices.Contains(list.Formats, *s.Format) {
			list.Formats = append(list.Formats, *s.Format)
		}
		switch {
		case informed != nil && *informed != (s.NotifiedAt != nil),
			informed != nil && !*informed && s.Status != model.SubmissionStatusAccepted && s.Status != model.SubmissionStatusDeclined:
		case status != nil:
			if s.Status == *status {
				list.Submissions = append(list.Submissions, s)
			}
		// A speaker's draft — and one they withdrew before ever submitting it — is theirs alone
		// until they submit it: the list leaves it out unless asked for drafts by name.
		case s.Status == model.SubmissionStatusDraft, s.Status == model.SubmissionStatusWithdrawn && s.SubmittedAt == nil:
		default:
			list.Submissions = append(list.Submissions, s)
		}
	}
	sort.Strings(list.Formats)
	return list, nil
}

// Submission answers Event.submission: one submission (or session) of the event.
func (r *Service) Submission(ctx context.Context, eventID, id string) (*model.Submission, error) {
	if !pid.Plausible(id) {
		return nil, errSubmissionNotFound
	}
	list, err := r.loadSubmissions(ctx, eventID, submissionFilter{ids: []string{id}})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errSubmissionNotFound
	}
	return list[0], nil
}

// SubmissionAnswers lists a submission's form answers, by question.
func SubmissionAnswers(s *model.Submission) []*model.SubmissionAnswer {
	keys := make([]string, 0, len(s.FormAnswers))
	for k := range s.FormAnswers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*model.SubmissionAnswer, len(keys))
	for i, k := range keys {
		fieldType := "text"
		if _, many := s.FormAnswers[k].([]any); many {
			fieldType = "checkbox"
		}
		out[i] = &model.SubmissionAnswer{ID: k, Section: "abstract", Label: k, FieldType: fieldType, Position: i + 1, Value: s.FormAnswers[k]}
	}
	return out
}

// SubmissionEmails lists the emails sent about a submission, newest first. The submissions of one
// request are read together (submissionEmailsOf).
func (r *Service) SubmissionEmails(ctx context.Context, id string) ([]*model.SubmissionEmail, error) {
	return r.loaders(ctx).emails.Load(ctx, id)
}

// submissionEmailsOf lists the emails of each submission of ids, newest first, in one statement.
func (r *Service) submissionEmailsOf(ctx context.Context, ids []string) (map[string][]*model.SubmissionEmail, error) {
	rows, err := r.ClientOf(ctx).EmailLog.Query().Where(emaillog.SubmissionIDIn(ids...)).
		Order(ent.Desc(emaillog.FieldCreatedAt), ent.Desc(emaillog.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]*model.SubmissionEmail{}
	for _, e := range rows {
		if e.SubmissionID == nil {
			continue
		}
		out[*e.SubmissionID] = append(out[*e.SubmissionID], &model.SubmissionEmail{ID: e.ID, ContactID: e.ContactID,
			Recipient: new(e.Recipient), Type: string(e.Type), Subject: e.Subject, Body: e.Body, Status: string(e.Status),
			SentAt: scalar.AtPtr(e.SentAt), CreatedAt: scalar.At(e.CreatedAt)})
	}
	for _, id := range ids {
		out[id] = nonNilSlice(out[id])
	}
	return out, nil
}

// ChangeSubmissionStatus moves a submission to pending, maybe or withdrawn (docs/rest-api.md: PATCH
// E/submissions/{id}); accepting and declining go through decide, and an accepted submission is
// cancelled as a session instead.
func (r *Service) ChangeSubmissionStatus(ctx context.Context, eventID, id string, in model.ChangeSubmissionStatusInput) (*model.StatusChangeResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.StatusChangeResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		switch in.Status {
		case model.SubmissionStatusAccepted, model.SubmissionStatusDeclined:
			return nil, apperr.Invalid("Accept and decline submissions with the decide endpoint")
		case model.SubmissionStatusDraft:
			return nil, apperr.Invalid("Draft status is controlled by the submission form")
		}
		s, err := lockSubmission(ctx, c, ev.ID, id, errSubmissionNotFound)
		if err != nil {
			return nil, err
		}
		if s.Status == submission.StatusAccepted {
			return nil, apperr.Invalid("This submission was accepted — cancel its session instead of changing the status")
		}
		if s.Status == submission.Status(in.Status) {
			return &model.StatusChangeResult{ID: s.ID, Status: in.Status}, nil
		}
		from := s.Status
		if s, err = s.Update().SetStatus(submission.Status(in.Status)).Save(ctx); err != nil {
			return nil, err
		}
		if err := record(ctx, c, timelineentry.KindStatusChanged, "Marked "+string(in.Status), new("was "+string(from)), s.ID); err != nil {
			return nil, err
		}
		return &model.StatusChangeResult{ID: s.ID, Status: in.Status}, nil
	})
}

// DecideSubmissions accepts or declines submissions (docs/decisions.md). The decision is
// tentative until informed: nothing is emailed and notified_at stays null, unless in.Inform, which
// emails each of their speakers once in the same transaction (REST's POST E/submissions/decide
// always informs, docs/rest-api.md). Accepted submissions become sessions: their tasks and
// deliverables are assigned, what they say is recorded as approved for the public (acceptContent),
// and so are their speakers' profiles (recordApprovedProfiles). An acceptance already announced
// ends only by cancelling the session; one not yet announced may be re-decided.
func (r *Service) DecideSubmissions(ctx context.Context, eventID string, in model.DecideSubmissionsInput) (*model.DecisionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.DecisionResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		ids, err := decisionIDs(in.SubmissionIds)
		if err != nil {
			return nil, err
		}
		inform := in.Inform != nil && *in.Inform
		if inform {
			if err := access.RequireSendMail(ctx); err != nil {
				return nil, err
			}
		}
		// Lock the event too: acceptance may number nothing, but it must not interleave with a
		// concurrent decision on the same submissions.
		subs, err := c.Submission.Query().Where(submission.IDIn(ids...), submission.EventID(ev.ID)).
			Order(ent.Asc(submission.FieldNumber)).ForUpdate().All(ctx)
		if err != nil {
			return nil, err
		}
		if len(subs) != len(ids) {
			return nil, errSubmissionNotFound
		}
		next := submission.StatusDeclined
		if in.Decision == model.DecisionAccept {
			next = submission.StatusAccepted
		}
		approve, reviewFirst := in.ApproveContent != nil && *in.ApproveContent, in.ReviewContentFirst != nil && *in.ReviewContentFirst
		if approve && reviewFirst {
			return nil, apperr.Invalid("Choose approveContent or reviewContentFirst, not both")
		}
		people, err := participants(ctx, c, ids...)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			switch {
			case s.Status == submission.StatusDraft || s.Status == submission.StatusWithdrawn:
				return nil, apperr.Invalid("Draft and withdrawn submissions cannot receive decision emails")
			case in.Decision == model.DecisionDecline && s.Status == submission.StatusAccepted && (s.NotifiedAt != nil || s.SourceFormID == nil):
				return nil, apperr.Invalid("Accepted submissions cannot be declined — cancel the session from Sessions instead")
			case in.Decision == model.DecisionDecline && s.Status == submission.StatusAccepted && s.CancelledAt != nil:
				return nil, apperr.Invalid("This session is cancelled — reinstate it before changing its decision")
			case len(people[s.ID]) == 0:
				return nil, apperr.Invalid("Every submission must have a speaker")
			}
		}
		for _, s := range subs {
			redecide := (s.Status == submission.StatusAccepted || s.Status == submission.StatusDeclined) && s.Status != next
			if redecide && (in.ConfirmRedecide == nil || !*in.ConfirmRedecide) {
				return nil, apperr.Conflict(apperr.CodeAlreadyDecided, "This submission already has a decision. Confirm to replace it.")
			}
		}
		// An accept-time reprogramming is applied before the status, so that the approved
		// snapshot holds the format it was accepted into.
		programmed, err := r.program(ctx, c, ev, in, subs)
		if err != nil {
			return nil, err
		}

		result := &model.DecisionResult{Submissions: []*model.DecidedSubmission{}}
		var decided, accepted, toInform []string
		outcome := map[string]*model.DecidedSubmission{}
		for _, s := range subs {
			if s.Status == next {
				// Already decided this way: a repeated request changes nothing, and sends nothing
				// twice; informing tells the speakers of a decision not told yet.
				if programmed != nil {
					if err := s.Update().SetProgrammedAs(*programmed).Exec(ctx); err != nil {
						return nil, err
					}
				}
				d := &model.DecidedSubmission{ID: s.ID, Status: model.SubmissionStatus(next), NotifiedAt: scalar.AtPtr(s.NotifiedAt)}
				result.Submissions = append(result.Submissions, d)
				if inform && s.NotifiedAt == nil {
					toInform, outcome[s.ID] = append(toInform, s.ID), d
				}
				continue
			}
			u := s.Update().SetStatus(next)
			if programmed != nil {
				u.SetProgrammedAs(*programmed)
			} else {
				u.ClearProgrammedAs()
			}
			if next == submission.StatusAccepted {
				acceptContent(u, s, approve, reviewFirst)
				accepted = append(accepted, s.ID)
			}
			if err := u.Exec(ctx); err != nil {
				return nil, err
			}
			decided = append(decided, s.ID)
			if err := r.emit(ctx, hookSubmissionDecided, hookData{"eventId": ev.ID, "submissionId": s.ID, "status": next}); err != nil {
				return nil, err
			}
			d := &model.DecidedSubmission{ID: s.ID, Status: model.SubmissionStatus(next)}
			result.Submissions = append(result.Submissions, d)
			if inform {
				toInform, outcome[s.ID] = append(toInform, s.ID), d
			}
		}
		label := "Declined"
		if next == submission.StatusAccepted {
			label = "Accepted"
			// Speakers are confirmed when told, not before: a tentative acceptance must not move
			// them into audiences that would reveal it.
			if inform {
				if err := r.confirmOnAcceptance(ctx, c, ev, accepted, people); err != nil {
					return nil, err
				}
			}
			var speakers []string
			for _, id := range accepted {
				speakers = append(speakers, mapAll(people[id], func(p speaker) string { return p.ContactID })...)
			}
			if err := r.recordApprovedProfiles(ctx, ev.ID, speakers); err != nil {
				return nil, err
			}
			if result.CreatedTasks, err = r.assignReadiness(ctx, ev.ID, accepted...); err != nil {
				return nil, err
			}
		}
		if err := record(ctx, c, timelineentry.KindDecided, label, nil, decided...); err != nil {
			return nil, err
		}
		if programmed != nil {
			if err := record(ctx, c, timelineentry.KindDecided, "Programmed as "+*programmed, nil, subs[0].ID); err != nil {
				return nil, err
			}
		}
		if len(toInform) == 0 {
			return result, nil
		}
		informed, sent, err := r.inform(ctx, c, ev, toInform, informOpts{feedback: in.Feedback, byDecide: true, quiet: decided})
		if err != nil {
			return nil, err
		}
		for _, d := range informed {
			outcome[d.ID].NotifiedAt = d.NotifiedAt
		}
		result.CreatedEmails = sent
		return result, nil
	})
}

// errProgramOne refuses a reprogramming asked with anything but the acceptance of one submission.
var errProgramOne = apperr.Invalid("Programming changes apply to a single accepted submission")

// program applies decideSubmissions' programFormatId and programTrackId to the one submission
// being accepted (subs[0], locked), replacing subs[0] with the submission as changed, and returns
// what changed as words ("Workshop (90 min), track Cloud"), or nil when nothing did (none asked,
// or the submission already had that format and that one track). A format or track not of the
// event is refused.
func (r *Service) program(ctx context.Context, c *ent.Client, ev *ent.Event, in model.DecideSubmissionsInput, subs []*ent.Submission) (*string, error) {
	if in.ProgramFormatID == nil && in.ProgramTrackID == nil {
		return nil, nil
	}
	if in.Decision != model.DecisionAccept || len(subs) != 1 {
		return nil, errProgramOne
	}
	s := subs[0]
	var changed []string
	u := s.Update()
	if in.ProgramFormatID != nil {
		notOurs := apperr.Invalid("That format is not in this event's library")
		if !pid.Plausible(*in.ProgramFormatID) {
			return nil, notOurs
		}
		f, err := c.Format.Query().Where(format.ID(*in.ProgramFormatID), format.EventID(ev.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notOurs
		}
		if err != nil {
			return nil, err
		}
		if s.FormatID == nil || *s.FormatID != f.ID {
			u.SetFormatID(f.ID)
			changed = append(changed, fmt.Sprintf("%s (%d min)", f.Name, f.DurationMinutes))
		}
	}
	if in.ProgramTrackID != nil {
		notOurs := apperr.Invalid("That track is not in this event's library")
		if !pid.Plausible(*in.ProgramTrackID) {
			return nil, notOurs
		}
		t, err := c.Track.Query().Where(track.ID(*in.ProgramTrackID), track.EventID(ev.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notOurs
		}
		if err != nil {
			return nil, err
		}
		current, err := s.QueryTracks().IDs(ctx)
		if err != nil {
			return nil, err
		}
		if len(current) != 1 || current[0] != t.ID {
			u.ClearTracks().AddTrackIDs(t.ID)
			changed = append(changed, "track "+t.Name)
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	updated, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	subs[0] = updated
	out := strings.Join(changed, ", ")
	return &out, nil
}

// acceptContent sets the content review of a submission being accepted (docs/profile-review.md
// "Acceptance"). What the committee accepted is what may be published, so its content becomes the
// approved snapshot, while contentReviewStatus stays pending_review for the organizers to look
// at (the contract's default) or is approved at once with approve. With reviewFirst nothing is
// approved: the session is on no public surface until approveSessionContent. A session already
// accepted keeps its review as it is, unless approve.
func acceptContent(u *ent.SubmissionUpdateOne, s *ent.Submission, approve, reviewFirst bool) {
	switch {
	case approve:
		approveContent(u, snapshot(s))
	case s.Status == submission.StatusAccepted:
	case reviewFirst:
		u.SetContentReviewStatus(submission.ContentReviewStatusPendingReview).SetApprovedSnapshot(map[string]any{})
	default:
		u.SetContentReviewStatus(submission.ContentReviewStatusPendingReview).SetApprovedSnapshot(snapshot(s))
	}
}

// confirmOnAcceptance confirms the speakers of newly accepted sessions when the event does not
// ask speakers to confirm themselves.
func (r *Service) confirmOnAcceptance(ctx context.Context, c *ent.Client, ev *ent.Event, accepted []string, people map[string][]speaker) error {
	if ev.SpeakerConfirmationEnabled || len(accepted) == 0 {
		return nil
	}
	var ids []string
	for _, s := range accepted {
		for _, p := range people[s] {
			ids = append(ids, p.ContactID)
		}
	}
	return c.Contact.Update().Where(contact.IDIn(ids...), contact.ConfirmedAtIsNil()).SetConfirmedAt(time.Now()).Exec(ctx)
}
