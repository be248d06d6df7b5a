package operation

import (
	"context"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/graph/apperr"
)

// errSessionNotFound answers for a session id that names no accepted submission of the event.
var errSessionNotFound = apperr.NotFound("Session")

// sessionEntity returns the accepted submission id of the event, locked for the transaction's
// update when forUpdate is set.
func sessionEntity(ctx context.Context, c *ent.Client, eventID, id string, forUpdate bool) (*ent.Submission, error) {
	return findSubmission(ctx, c, eventID, id, errSessionNotFound, forUpdate, submission.StatusEQ(submission.StatusAccepted))
}

// formatOf checks that formatID, when given, is a format of the event.
func formatOf(ctx context.Context, c *ent.Client, eventID string, formatID *string) error {
	if formatID == nil {
		return nil
	}
	ok, err := c.Format.Query().Where(format.ID(*formatID), format.EventID(eventID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok || !pid.Plausible(*formatID) {
		return apperr.Invalid("Choose a format from this event")
	}
	return nil
}

// lockSubmission loads a submission of the event for update.
func lockSubmission(ctx context.Context, c *ent.Client, eventID, id string, notFound error) (*ent.Submission, error) {
	return findSubmission(ctx, c, eventID, id, notFound, true)
}

// findSubmission loads a submission of the event that also meets where, answering notFound for
// anything else; it is locked for the transaction's update when forUpdate is set. It is the one
// lookup of a submission by id.
func findSubmission(ctx context.Context, c *ent.Client, eventID, id string, notFound error, forUpdate bool,
	where ...predicate.Submission) (*ent.Submission, error) {
	if !pid.Plausible(id) {
		return nil, notFound
	}
	q := c.Submission.Query().Where(submission.ID(id), submission.EventID(eventID)).Where(where...)
	if forUpdate {
		q = q.ForUpdate()
	}
	s, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	return s, err
}
