package operation

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/decisionsend"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
	"github.com/podium/podium/jobs"
)

// Deciding and informing are two acts (docs/decisions.md): DecideSubmissions records accepted or
// declined, tentatively; InformSubmissions emails the decision to the speakers, now or at a
// scheduled time (a decision send and its River job), and sets notified_at in the transaction
// that queues the emails. Until then the decision is private: the speaker's portal shows the
// submission as pending and no public surface shows the session (informedSQL).

// uninformedSQL is the condition, on submissions s, of a decision not yet announced: a
// call-for-proposals submission accepted or declined whose speakers have not been told.
const uninformedSQL = "(s.source_form_id IS NOT NULL AND s.status IN ('accepted', 'declined') AND s.notified_at IS NULL)"

// informedSQL is the condition, on submissions s, of a session its speakers may know of and the
// public may see: anything but a call-for-proposals submission whose decision is not announced.
const informedSQL = "(s.source_form_id IS NULL OR s.notified_at IS NOT NULL)"

// decisionSent is Submission.decisionSent and Session.decisionSent: the decision was emailed, or
// the session is manual and no decision announces it.
func decisionSent(manual bool, notifiedAt *time.Time) bool { return manual || notifiedAt != nil }

// Limits of what an organizer writes into one send.
const (
	maxSendSubject  = 200
	maxSendFeedback = 20000
)

// informOpts is how one send emails its decisions.
type informOpts struct {
	subject, feedback, replyTo *string
	// lenient skips the submissions that cannot be informed instead of refusing the whole
	// request: a scheduled send informs what is still uninformed when it runs.
	lenient bool
	// checkOnly checks without writing: a send being scheduled.
	checkOnly bool
	// byDecide is a decision informing at once (decideSubmissions with inform, REST's decide): the
	// submissions were checked by the decision, and feedback is sent as written.
	byDecide bool
	// quiet are submissions decided in this transaction: their submission.decided webhook and
	// decided timeline line announce them already, as before decisions could wait.
	quiet []string
}

// InformSubmissions emails the decisions on submissions to their speakers, once (the
// informSubmissions mutation), or schedules it when in.At is in the future. Either way it records
// a decision send (Event.decisionSends).
func (r *Service) InformSubmissions(ctx context.Context, eventID string, in model.InformSubmissionsInput) (*model.InformResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.InformResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		ids, err := decisionIDs(in.SubmissionIds)
		if err != nil {
			return nil, err
		}
		opts, err := checkInform(in)
		if err != nil {
			return nil, err
		}
		now := time.Now()
		at, scheduled := now, in.At != nil && in.At.After(now)
		if scheduled {
			at = *in.At
		}
		name, _ := actor(ctx)
		create := c.DecisionSend.Create().SetEventID(ev.ID).SetSubmissionIds(ids).SetNillableSubject(opts.subject).
			SetNillableFeedback(opts.feedback).SetNillableReplyTo(opts.replyTo).SetScheduledAt(at).SetCreatedBy(name)
		if scheduled {
			// What could not be sent then is refused now, so the organizer learns of it at once;
			// what changes in between (a re-decision, an inform by hand) is skipped when it runs.
			opts.checkOnly = true
			if _, _, err := r.inform(ctx, c, ev, ids, opts); err != nil {
				return nil, err
			}
			send, err := create.Save(ctx)
			if err != nil {
				return nil, err
			}
			tx, err := r.tx(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := r.Outbox.Jobs.InsertTx(ctx, tx, jobs.InformDecisionsArgs{SendID: send.ID, OrganizationID: ev.OrganizationID},
				&river.InsertOpts{ScheduledAt: at}); err != nil {
				return nil, err
			}
			if err := r.emit(ctx, hookDecisionsScheduled, hookData{"eventId": ev.ID, "decisionSendId": send.ID,
				"scheduledAt": at.UTC(), "submissions": len(ids)}); err != nil {
				return nil, err
			}
			return &model.InformResult{Submissions: []*model.DecidedSubmission{}, Send: send}, nil
		}
		informed, sent, err := r.inform(ctx, c, ev, ids, opts)
		if err != nil {
			return nil, err
		}
		send, err := create.SetSentAt(now).SetSent(sent).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.emitSent(ctx, send, len(informed)); err != nil {
			return nil, err
		}
		return &model.InformResult{Submissions: informed, CreatedEmails: sent, Send: send}, nil
	})
}

// RunDecisionSend sends a scheduled decision send (jobs.InformDecisionsWorker): the submissions of
// it still decided and uninformed are informed, and the send is marked sent, in one transaction
// under the send's lock. A send already sent or cancelled, or gone with its event, sends nothing.
func (r *Service) RunDecisionSend(ctx context.Context, sendID string) error {
	return r.DB.InTx(ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		send, err := c.DecisionSend.Query().Where(decisionsend.ID(sendID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if send.SentAt != nil || send.CancelledAt != nil {
			return nil
		}
		ev, err := c.Event.Get(ctx, send.EventID)
		if err != nil {
			return err
		}
		informed, sent, err := r.inform(ctx, c, ev, send.SubmissionIds, informOpts{subject: send.Subject, feedback: send.Feedback,
			replyTo: send.ReplyTo, lenient: true})
		if err != nil {
			return err
		}
		send, err = send.Update().SetSentAt(time.Now()).SetSent(sent).Save(ctx)
		if err != nil {
			return err
		}
		return r.emitSent(ctx, send, len(informed))
	})
}

// emitSent emits decisions.sent for a send that went out: how many of its submissions it informed
// (a scheduled send skips those re-decided or informed meanwhile) and how many emails it queued.
func (r *Service) emitSent(ctx context.Context, send *ent.DecisionSend, informed int) error {
	return r.emit(ctx, hookDecisionsSent, hookData{"eventId": send.EventID, "decisionSendId": send.ID,
		"submissions": informed, "emails": send.Sent})
}

// CancelDecisionSend cancels a scheduled decision send that has not gone out (the
// cancelDecisionSend mutation).
func (r *Service) CancelDecisionSend(ctx context.Context, eventID, sendID string) (*ent.DecisionSend, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.DecisionSend, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		notFound := apperr.NotFound("Decision send")
		if !pid.Plausible(sendID) {
			return nil, notFound
		}
		send, err := c.DecisionSend.Query().Where(decisionsend.ID(sendID), decisionsend.EventID(ev.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notFound
		}
		if err != nil {
			return nil, err
		}
		switch {
		case send.SentAt != nil:
			return nil, apperr.Conflict(apperr.CodeConflict, "This decision send went out already")
		case send.CancelledAt != nil:
			return nil, apperr.Conflict(apperr.CodeConflict, "This decision send is cancelled already")
		}
		send, err = send.Update().SetCancelledAt(time.Now()).Save(ctx)
		if err != nil {
			return nil, err
		}
		return send, r.emit(ctx, hookDecisionsCancelled, hookData{"eventId": ev.ID, "decisionSendId": send.ID})
	})
}

// DecisionSends answers Event.decisionSends: the event's sends, newest scheduled time first.
func (r *Service) DecisionSends(ctx context.Context, ev *ent.Event) ([]*ent.DecisionSend, error) {
	return r.loaders(ctx).decisionSends.Load(ctx, ev.ID)
}

// decisionIDs checks and sorts the submission ids of a send.
func decisionIDs(in []string) ([]string, error) {
	ids := slices.Compact(slices.Sorted(slices.Values(in)))
	if len(ids) == 0 {
		return nil, apperr.Invalid("Pass at least one submission id")
	}
	for _, id := range ids {
		if !pid.Plausible(id) {
			return nil, errSubmissionNotFound
		}
	}
	return ids, nil
}

// checkInform checks a send's subject, feedback and reply-to.
func checkInform(in model.InformSubmissionsInput) (informOpts, error) {
	var o informOpts
	if in.Subject != nil {
		s := strings.Join(strings.Fields(*in.Subject), " ")
		if s == "" || len([]rune(s)) > maxSendSubject {
			return o, apperr.Invalid("The subject must be one line of 1 to %d characters", maxSendSubject)
		}
		o.subject = &s
	}
	if in.Feedback != nil {
		f := strings.TrimSpace(*in.Feedback)
		if len([]rune(f)) > maxSendFeedback {
			return o, apperr.Invalid("The feedback must be at most %d characters", maxSendFeedback)
		}
		if f != "" {
			o.feedback = &f
		}
	}
	if in.ReplyTo != nil {
		addr, err := normalizeEmail(*in.ReplyTo)
		if err != nil || len(addr) > 320 {
			return o, apperr.Invalid("replyTo must be one email address, like name@example.com")
		}
		o.replyTo = &addr
	}
	return o, nil
}

// inform emails the decision on each submission of ids to its speakers, once per speaker, and sets
// its notified_at, under the submissions' locks: a concurrent inform of the same submissions waits,
// then finds them informed. It logs an informed timeline line and a submission.informed webhook
// per submission, and returns the submissions informed and the emails queued.
func (r *Service) inform(ctx context.Context, c *ent.Client, ev *ent.Event, ids []string, o informOpts) ([]*model.DecidedSubmission, int, error) {
	subs, err := c.Submission.Query().Where(submission.IDIn(ids...), submission.EventID(ev.ID)).
		Order(ent.Asc(submission.FieldNumber)).ForUpdate().All(ctx)
	if err != nil {
		return nil, 0, err
	}
	if len(subs) != len(ids) && !o.lenient {
		return nil, 0, errSubmissionNotFound
	}
	people, err := participants(ctx, c, ids...)
	if err != nil {
		return nil, 0, err
	}
	var todo []*ent.Submission
	for _, s := range subs {
		why := ""
		switch {
		case o.byDecide:
		case s.SourceFormID == nil:
			why = "is a manual session: it has no decision to announce"
		case s.Status != submission.StatusAccepted && s.Status != submission.StatusDeclined:
			why = "is not accepted or declined"
		case s.NotifiedAt != nil:
			why = "was informed already"
		case s.CancelledAt != nil:
			why = "is a cancelled session"
		case len(people[s.ID]) == 0:
			why = "has no speaker"
		}
		if why == "" {
			todo = append(todo, s)
		} else if !o.lenient {
			return nil, 0, apperr.Invalid("%s %s; nothing was sent", s.Code, why)
		}
	}
	if o.checkOnly {
		return nil, 0, nil
	}
	now := time.Now()
	out := []*model.DecidedSubmission{}
	var emails []email.Email
	byStatus := map[submission.Status][]string{}
	for _, s := range todo {
		if err := s.Update().SetNotifiedAt(now).Exec(ctx); err != nil {
			return nil, 0, err
		}
		if !slices.Contains(o.quiet, s.ID) {
			if err := r.emit(ctx, hookSubmissionInformed, hookData{"eventId": ev.ID, "submissionId": s.ID, "status": s.Status}); err != nil {
				return nil, 0, err
			}
			byStatus[s.Status] = append(byStatus[s.Status], s.ID)
		}
		out = append(out, &model.DecidedSubmission{ID: s.ID, Status: model.SubmissionStatus(s.Status), NotifiedAt: new(scalar.At(now))})
		emails = append(emails, decisionEmails(ev, s, people[s.ID], o)...)
	}
	if err := r.confirmOnAcceptance(ctx, c, ev, byStatus[submission.StatusAccepted], people); err != nil {
		return nil, 0, err
	}
	for status, label := range map[submission.Status]string{submission.StatusAccepted: "Informed: accepted",
		submission.StatusDeclined: "Informed: declined"} {
		if err := record(ctx, c, timelineentry.KindInformed, label, o.feedback, byStatus[status]...); err != nil {
			return nil, 0, err
		}
	}
	rows, err := r.Outbox.Queue(ctx, emails...)
	if err != nil {
		return nil, 0, err
	}
	return out, len(rows), nil
}

// decisionEmails are the emails announcing the decision on s: one per speaker, a person listed
// twice mailed once.
func decisionEmails(ev *ent.Event, s *ent.Submission, people []speaker, o informOpts) []email.Email {
	template := email.SessionDeclined
	if s.Status == submission.StatusAccepted {
		template = email.SessionAccepted
	}
	var message string
	if o.feedback != nil {
		message = *o.feedback
	}
	var subject string
	if o.subject != nil {
		subject = *o.subject
	}
	var programmed string
	if s.Status == submission.StatusAccepted && s.ProgrammedAs != nil {
		programmed = "It is programmed as " + *s.ProgrammedAs + ", rather than as submitted."
	}
	seen := map[string]bool{}
	var out []email.Email
	for _, p := range people {
		if seen[p.ContactID] {
			continue
		}
		seen[p.ContactID] = true
		out = append(out, email.Email{EventID: ev.ID, ContactID: new(p.ContactID), SubmissionID: new(s.ID),
			Type: emaillog.Type(s.Status), To: p.Email, Template: template, Subject: subject, ReplyTo: o.replyTo,
			Data: email.Data{EventName: ev.Name, FirstName: p.FirstName, Path: "/portal", SessionTitle: s.Title, ProgrammedAs: programmed, Message: message}})
	}
	return out
}
