package operation

import (
	"context"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/timelineentry"
)

// actor names who is making a change, for timelines: writes made with an API key record the key
// (its id, and "API key: <name>"); writes of a signed-in person record their email, and
// "<email> via <application>" when an application acts for them (docs/agents.md).
func actor(ctx context.Context) (name string, keyID *string) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return "Podium", nil
	}
	if v.Person != nil {
		if v.Client != nil {
			return v.Person.Email + " via " + v.Client.Name, nil
		}
		return v.Person.Email, nil
	}
	id := v.APIKeyID
	return "API key: " + v.APIKeyName, &id
}

// record adds a line to the timeline of each submission: the lifecycle transitions whose columns
// are overwritten in place (status changes, decisions, cancellation, reinstatement, scheduling,
// content approval). Emails, task completions, uploads and confirmations have records of their
// own, which the timeline reads directly (see timeline).
func record(ctx context.Context, c *ent.Client, kind timelineentry.Kind, label string, detail *string, submissionIDs ...string) error {
	if len(submissionIDs) == 0 {
		return nil
	}
	name, keyID := actor(ctx)
	now := time.Now()
	builders := make([]*ent.TimelineEntryCreate, len(submissionIDs))
	for i, id := range submissionIDs {
		builders[i] = c.TimelineEntry.Create().SetSubmissionID(id).SetKind(kind).SetLabel(label).
			SetNillableDetail(detail).SetActorName(name).SetNillableActorAPIKeyID(keyID).SetAt(now)
	}
	return c.TimelineEntry.CreateBulk(builders...).Exec(ctx)
}
