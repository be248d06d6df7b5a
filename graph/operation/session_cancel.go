package operation

import (
	"context"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

// invitesSent reports whether calendar invites of the session have gone out.
func invitesSent(ctx context.Context, c *ent.Client, sessionID string) (bool, error) {
	return c.EmailLog.Query().Where(emaillog.SubmissionID(sessionID), emaillog.TypeEQ(emaillog.TypeCalendarInvite)).Exist(ctx)
}

// calendarEntry describes a scheduled session for an ICS object.
func (r *Service) calendarEntry(ctx context.Context, c *ent.Client, s *ent.Submission, sequence int) (calendar.Session, error) {
	title, description := invitationContent(s.Title, s.Description, s.ApprovedSnapshot)
	entry := calendar.Session{ID: s.ID, Title: title, Description: description, StartsAt: *s.StartsAt,
		EndsAt: *s.EndsAt, Sequence: sequence, URL: r.Outbox.PublicURL + "/portal"}
	if s.RoomID != nil {
		room, err := c.Room.Get(ctx, *s.RoomID)
		if err != nil {
			return entry, err
		}
		entry.Room = room.Name
	}
	return entry, nil
}

// sessionChange starts a cancellation or reinstatement: it locks the session and says whether the
// speakers are told (notifySpeakers, default true) and whether their email carries a calendar
// update — only for a scheduled session whose invites had gone out.
func (r *Service) sessionChange(ctx context.Context, c *ent.Client, eventID, sessionID string, notifySpeakers *bool) (
	ev *ent.Event, s *ent.Submission, notify, withICS bool, err error) {
	if ev, err = access.Event(ctx, c, eventID); err != nil {
		return
	}
	if s, err = lockSubmission(ctx, c, ev.ID, sessionID, errSessionNotFound); err != nil {
		return
	}
	notify = notifySpeakers == nil || *notifySpeakers
	if notify {
		if err = access.RequireSendMail(ctx); err != nil {
			return
		}
	}
	if notify && s.StartsAt != nil && s.EndsAt != nil {
		withICS, err = invitesSent(ctx, c, s.ID)
	}
	return
}

// CancelSession cancels a session: cancelledAt and cancelledBy set (the status stays accepted),
// open tasks waived, a timeline line, agendaDirty when it was scheduled, and a cancellation email
// per speaker unless notifySpeakers is false — with an ICS CANCEL when invites had gone out.
func (r *Service) CancelSession(ctx context.Context, eventID, sessionID string, in model.CancelSessionInput) (*model.CancelSessionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CancelSessionResult, error) {
		c := r.ClientOf(ctx)
		ev, s, notify, withICS, err := r.sessionChange(ctx, c, eventID, sessionID, in.NotifySpeakers)
		if err != nil {
			return nil, err
		}
		if s.Status != submission.StatusAccepted {
			return nil, apperr.Invalid("Only accepted sessions can be cancelled")
		}
		if s.CancelledAt != nil {
			return nil, apperr.Invalid("This session is already cancelled")
		}
		now := time.Now()
		u := s.Update().SetCancelledAt(now).SetCancelledBy(submission.CancelledBy(in.Cause))
		sequence := s.IcsSequence + 1
		if withICS {
			u.SetIcsSequence(sequence)
		}
		if s, err = u.Save(ctx); err != nil {
			return nil, err
		}
		waived, err := c.TaskAssignment.Update().
			Where(taskassignment.SubmissionID(s.ID), taskassignment.StatusEQ(taskassignment.StatusTodo)).
			SetStatus(taskassignment.StatusWaived).ClearCompletedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		label := "Session cancelled"
		if in.Cause == model.SessionCancelledBySpeaker {
			label = "Session cancelled by the speaker"
		}
		if err := record(ctx, c, timelineentry.KindCancelled, label, nil, s.ID); err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookSessionCancelled, hookData{"eventId": ev.ID, "sessionId": s.ID, "cause": in.Cause}); err != nil {
			return nil, err
		}
		if s.StartsAt != nil {
			if err := ev.Update().SetAgendaDirty(true).Exec(ctx); err != nil {
				return nil, err
			}
		}
		created := 0
		if notify {
			emails, err := r.sessionEmails(ctx, c, ev, s, emaillog.TypeCancelled, email.SessionCancelled, in.Message, withICS, sequence, calendar.Cancel)
			if err != nil {
				return nil, err
			}
			created = emails
		}
		return &model.CancelSessionResult{ID: s.ID, CancelledAt: scalar.At(now), CancelledBy: in.Cause,
			CreatedEmails: created, WaivedTasks: waived}, nil
	})
}

// sessionEmails queues one email per speaker of s, with an ICS object made by ics when withICS.
func (r *Service) sessionEmails(ctx context.Context, c *ent.Client, ev *ent.Event, s *ent.Submission, typ emaillog.Type,
	template string, message *string, withICS bool, sequence int,
	ics func(calendar.Session, calendar.Party, calendar.Party, time.Time) string) (int, error) {
	people, err := participants(ctx, c, s.ID)
	if err != nil {
		return 0, err
	}
	var entry calendar.Session
	if withICS {
		if entry, err = r.calendarEntry(ctx, c, s, sequence); err != nil {
			return 0, err
		}
	}
	msg := ""
	if message != nil {
		msg = *message
	}
	batch := make([]email.Email, 0, len(people[s.ID]))
	for _, p := range people[s.ID] {
		e := email.Email{EventID: ev.ID, ContactID: new(p.ContactID), SubmissionID: new(s.ID), Type: typ,
			To: p.Email, Template: template, Data: email.Data{EventName: ev.Name, FirstName: p.FirstName,
				Path: "/portal", SessionTitle: s.Title, Message: msg, Calendar: withICS}}
		if withICS {
			e.ICS = ics(entry, calendar.Party{Name: ev.Name}, calendar.Party{Name: fullName(p.FirstName, p.LastName), Email: p.Email}, time.Now())
			e.ICSSequence = new(sequence)
		}
		batch = append(batch, e)
	}
	rows, err := r.Outbox.Queue(ctx, batch...)
	return len(rows), err
}

// ReinstateSession undoes a cancellation: waived tasks reopen, speakers get a reinstatement email
// — with a fresh ICS REQUEST when the session is scheduled and invites had gone out; otherwise a
// scheduled session is marked as owing a fresh invite.
func (r *Service) ReinstateSession(ctx context.Context, eventID, sessionID string, in model.ReinstateSessionInput) (*model.ReinstateSessionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReinstateSessionResult, error) {
		c := r.ClientOf(ctx)
		ev, s, notify, withICS, err := r.sessionChange(ctx, c, eventID, sessionID, in.NotifySpeakers)
		if err != nil {
			return nil, err
		}
		if s.CancelledAt == nil {
			return nil, apperr.Invalid("This session is not cancelled")
		}
		sequence := s.IcsSequence + 1
		u := s.Update().ClearCancelledAt().ClearCancelledBy()
		switch {
		case withICS:
			u.SetIcsSequence(sequence).SetScheduleDirty(false)
		case s.StartsAt != nil:
			u.SetScheduleDirty(true)
		}
		if s, err = u.Save(ctx); err != nil {
			return nil, err
		}
		reopened, err := c.TaskAssignment.Update().
			Where(taskassignment.SubmissionID(s.ID), taskassignment.StatusEQ(taskassignment.StatusWaived)).
			SetStatus(taskassignment.StatusTodo).ClearCompletedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := record(ctx, c, timelineentry.KindReinstated, "Session reinstated", nil, s.ID); err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookSessionReinstated, hookData{"eventId": ev.ID, "sessionId": s.ID}); err != nil {
			return nil, err
		}
		if s.StartsAt != nil {
			if err := ev.Update().SetAgendaDirty(true).Exec(ctx); err != nil {
				return nil, err
			}
		}
		created := 0
		if notify {
			if created, err = r.sessionEmails(ctx, c, ev, s, emaillog.TypeReinstated, email.SessionReinstated, in.Message, withICS, sequence, calendar.Request); err != nil {
				return nil, err
			}
		}
		return &model.ReinstateSessionResult{ID: s.ID, ReopenedTasks: reopened, CreatedEmails: created, CalendarReinvited: withICS}, nil
	})
}
