package operation

import (
	"context"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// CreateSession creates an accepted session without a submission (docs/rest-api.md: POST E/sessions).
func (r *Service) CreateSession(ctx context.Context, eventID string, in model.CreateSessionInput) (*model.SessionRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.SessionRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		title := strings.TrimSpace(in.Title)
		if title == "" {
			return nil, apperr.Invalid("Enter a session title")
		}
		speakers, err := speakersOf(ctx, c, ev.ID, in.SpeakerIds, "Every session must have a speaker")
		if err != nil {
			return nil, err
		}
		if err := formatOf(ctx, c, ev.ID, in.FormatID); err != nil {
			return nil, err
		}
		// Everything but the number is written before the event is locked: the lock serializes the
		// event's creations until commit, so the session is written with a provisional number and
		// code (pendingNumber) and numbered last (numberSession), two statements before the commit.
		id := pid.New("sub")
		if err := r.emit(ctx, hookSessionCreated, hookData{"eventId": ev.ID, "sessionId": id, "title": title}); err != nil {
			return nil, err
		}
		description := ""
		if in.Description != nil {
			description = *in.Description
		}
		s, err := c.Submission.Create().SetID(id).
			SetEventID(ev.ID).SetNumber(pendingNumber(id)).SetCode(id).
			SetStatus(submission.StatusAccepted).
			SetTitle(title).SetDescription(description).SetNillableFormatID(in.FormatID).
			SetSubmittedAt(time.Now()).SetAnswers(map[string]any{}).
			SetContentReviewStatus(submission.ContentReviewStatusApproved).
			SetApprovedSnapshot(snapshot(&ent.Submission{Title: title, Description: description, FormatID: in.FormatID,
				Language: "en"})).
			Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := setParticipants(ctx, c, s.ID, speakers, true); err != nil {
			return nil, err
		}
		if err := r.recordApprovedProfiles(ctx, ev.ID, speakers); err != nil {
			return nil, err
		}
		if _, err := r.assignReadiness(ctx, ev.ID, s.ID); err != nil {
			return nil, err
		}
		if s.Number, err = r.numberSession(ctx, c, ev.ID, s.ID); err != nil {
			return nil, err
		}
		s.Code = sessionCode(s.Number)
		return toSessionRecord(s), nil
	})
}

func toSessionRecord(s *ent.Submission) *model.SessionRecord {
	rec := &model.SessionRecord{
		ID: s.ID, CreatedAt: scalar.At(s.CreatedAt), UpdatedAt: scalar.At(s.UpdatedAt), EventID: s.EventID,
		Code: s.Code, Status: model.SubmissionStatus(s.Status), SourceFormID: s.SourceFormID,
		SubmitterContactID: s.SubmitterContactID, Title: s.Title, Description: s.Description,
		FormatID: s.FormatID, LevelID: s.LevelID, Language: s.Language, StartsAt: scalar.AtPtr(s.StartsAt),
		EndsAt: scalar.AtPtr(s.EndsAt), RoomID: s.RoomID, IcsSequence: s.IcsSequence,
		ScheduleDirty: s.ScheduleDirty, Capacity: s.Capacity, CeuCredits: s.CeuCredits,
		ClientSessionID: s.ClientSessionID, NotifiedAt: scalar.AtPtr(s.NotifiedAt),
		SubmittedAt: scalar.AtPtr(s.SubmittedAt), Answers: s.Answers, ApprovedSnapshot: approvedSnapshot(s),
		ContentReviewStatus: model.ContentReviewStatus(s.ContentReviewStatus), CancelledAt: scalar.AtPtr(s.CancelledAt),
	}
	if rec.Answers == nil {
		rec.Answers = map[string]any{}
	}
	if s.CancelledBy != nil {
		rec.CancelledBy = new(model.SessionCancelledBy(*s.CancelledBy))
	}
	return rec
}

// DeleteSession removes a manual session and what hangs off it; sessions from submissions keep
// their history and are cancelled instead.
func (r *Service) DeleteSession(ctx context.Context, eventID, sessionID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		s, err := lockSubmission(ctx, c, ev.ID, sessionID, errSessionNotFound)
		if err != nil {
			return "", err
		}
		if !isManual(s) || s.Status != submission.StatusAccepted {
			return "", apperr.Invalid("This session came from a submission and keeps its history — cancel it instead")
		}
		if err := c.Submission.DeleteOne(s).Exec(ctx); err != nil {
			return "", err
		}
		if err := r.emit(ctx, hookSessionDeleted, hookData{"eventId": ev.ID, "sessionId": s.ID}); err != nil {
			return "", err
		}
		return s.ID, nil
	})
}
