package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/viewer"
)

// ChangesChannel is the PostgreSQL notification channel of committed event changes: EmitChange
// notifies it in the change's transaction, so every Podium process listening hears the change
// when, and only when, it commits (docs/subscriptions.md).
const ChangesChannel = "podium_event_changes"

// ChangeRetention is how long event changes are kept for subscribers that resume after a
// reconnect.
const ChangeRetention = 24 * time.Hour

// Change is one committed change to an event, as the notification carries it and the table
// event_changes keeps it.
type Change struct {
	ID             int64             `json:"id"`
	OrganizationID string            `json:"organizationId"`
	EventID        string            `json:"eventId"`
	Type           string            `json:"type"`
	Data           map[string]string `json:"data"`
	At             time.Time         `json:"at"`
}

// emitChangeSQL writes the change and notifies ChangesChannel with it in one statement. The
// notification is delivered at the commit, in commit order, and not at all on a rollback.
const emitChangeSQL = `WITH c AS (
	INSERT INTO event_changes (organization_id, event_id, type, data, created_at) VALUES ($1, $2, $3, $4, $5)
	RETURNING id, organization_id, event_id, type, data, created_at)
SELECT pg_notify('` + ChangesChannel + `', json_build_object('id', id, 'organizationId', organization_id,
	'eventId', event_id, 'type', type, 'data', data, 'at', created_at)::text) FROM c`

// EmitChange records a change of the event eventID of the organization org in tx, the transaction
// of the change itself, and announces it to the processes listening when tx commits. data holds
// the ids the change concerns and its new status, by their GraphQL names (sessionId, status, …).
func EmitChange(ctx context.Context, tx pgx.Tx, org, eventID, changeType string, data map[string]string) error {
	raw, err := json.Marshal(withActor(ctx, data))
	if err != nil {
		return fmt.Errorf("jobs: change data: %w", err)
	}
	if _, err := tx.Exec(ctx, emitChangeSQL, org, eventID, changeType, raw, time.Now().UTC()); err != nil {
		return fmt.Errorf("jobs: event change: %w", err)
	}
	return nil
}

// withActor is data, with who made the change when an application acting for a person made it
// (docs/agents.md): "actor" is "<email> via <application>", "clientId" the application's id.
// Other changes carry no actor. data itself is not changed.
func withActor(ctx context.Context, data map[string]string) map[string]string {
	v := viewer.FromContext(ctx)
	if v == nil || v.Person == nil || v.Client == nil {
		if data == nil {
			return map[string]string{}
		}
		return data
	}
	out := make(map[string]string, len(data)+2)
	maps.Copy(out, data)
	out["actor"] = v.Person.Email + " via " + v.Client.Name
	out["clientId"] = v.Client.ID
	return out
}

// PruneChangesArgs asks for the event changes older than ChangeRetention to be deleted.
type PruneChangesArgs struct{}

// Kind names the job.
func (PruneChangesArgs) Kind() string { return "prune_event_changes" }

// InsertOpts puts the job on the maintenance queue, once per period however many processes run.
func (PruneChangesArgs) InsertOpts() river.InsertOpts { return maintenanceOnce(pruneEvery) }

// PruneChangesWorker deletes the event changes older than ChangeRetention.
type PruneChangesWorker struct {
	river.WorkerDefaults[PruneChangesArgs]
	Pool *pgxpool.Pool
}

// Work deletes the expired changes of every organization, in batches.
func (w *PruneChangesWorker) Work(ctx context.Context, _ *river.Job[PruneChangesArgs]) error {
	ctx = viewer.System(ctx, "prune: expired event changes of every organization")
	before := time.Now().Add(-ChangeRetention)
	for {
		tag, err := w.Pool.Exec(ctx, `DELETE FROM event_changes WHERE id IN (
			SELECT id FROM event_changes WHERE created_at < $1 ORDER BY created_at LIMIT 5000)`, before)
		if err != nil {
			return fmt.Errorf("jobs: prune event changes: %w", err)
		}
		if tag.RowsAffected() < 5000 {
			return nil
		}
	}
}
