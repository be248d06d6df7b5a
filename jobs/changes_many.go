package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
)

// ChangeEmailStatus is the change type of an email's delivery status (queued, sent or failed),
// recorded where the email is queued (package graph/email) and where its outcome is written.
const ChangeEmailStatus = "email.status_changed"

// NewChange is one change EmitChanges records.
type NewChange struct {
	EventID string
	Type    string
	Data    map[string]string
}

// notifyChangesSQL is the tail of a statement that writes changes in a CTE named c (returning
// every column of event_changes): it notifies ChangesChannel of each, in id order.
const notifyChangesSQL = `SELECT pg_notify('` + ChangesChannel + `', json_build_object('id', c.id, 'organizationId', c.organization_id,
	'eventId', c.event_id, 'type', c.type, 'data', c.data, 'at', c.created_at)::text)
FROM (SELECT * FROM c ORDER BY id) AS c`

// emitChangesSQL writes many changes of one organization and notifies each, in one statement.
const emitChangesSQL = `WITH c AS (
	INSERT INTO event_changes (organization_id, event_id, type, data, created_at)
	SELECT $1, v.event_id, v.type, v.data::jsonb, $5
	FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v(event_id, type, data, n) ORDER BY v.n
	RETURNING id, organization_id, event_id, type, data, created_at)
` + notifyChangesSQL

// EmitChanges records changes of the organization org in tx, in one statement whatever their
// number, as EmitChange records one. Nothing is written when changes is empty.
func EmitChanges(ctx context.Context, tx pgx.Tx, org string, changes []NewChange) error {
	if len(changes) == 0 {
		return nil
	}
	events, types, data := make([]string, len(changes)), make([]string, len(changes)), make([]string, len(changes))
	for i, c := range changes {
		raw, err := json.Marshal(withActor(ctx, c.Data))
		if err != nil {
			return fmt.Errorf("jobs: change data: %w", err)
		}
		events[i], types[i], data[i] = c.EventID, c.Type, string(raw)
	}
	if _, err := tx.Exec(ctx, emitChangesSQL, org, events, types, data, time.Now().UTC()); err != nil {
		return fmt.Errorf("jobs: event changes: %w", err)
	}
	return nil
}

// emailOutcomeChangesSQL is the tail of the delivery worker's outcome statement: the outcomes u
// (id, event_id, status) that are sent or failed record one change per event and status, with
// their count (and the email's id when it is one), notified at the commit. A batch of outcomes
// thus costs subscribers one change, not one per email. The organization is $6.
const emailOutcomeChangesSQL = `,
c AS (
	INSERT INTO event_changes (organization_id, event_id, type, data, created_at)
	SELECT $6, u.event_id, '` + ChangeEmailStatus + `', jsonb_strip_nulls(jsonb_build_object('status', u.status,
		'count', count(*)::text, 'emailId', CASE WHEN count(*) = 1 THEN min(u.id) END)), now()
	FROM u WHERE u.status IN ('sent', 'failed') GROUP BY u.event_id, u.status ORDER BY u.event_id, u.status
	RETURNING id, organization_id, event_id, type, data, created_at)
` + notifyChangesSQL

// EmailStatusChanges are the email.status_changed changes of emails reaching status: one per
// event, with the count of its emails (and the email's id when it is one).
func EmailStatusChanges(emails []*ent.EmailLog, status string) []NewChange {
	byEvent := map[string][]string{}
	var events []string
	for _, e := range emails {
		if _, ok := byEvent[e.EventID]; !ok {
			events = append(events, e.EventID)
		}
		byEvent[e.EventID] = append(byEvent[e.EventID], e.ID)
	}
	out := make([]NewChange, len(events))
	for i, ev := range events {
		data := map[string]string{"status": status, "count": strconv.Itoa(len(byEvent[ev]))}
		if ids := byEvent[ev]; len(ids) == 1 {
			data["emailId"] = ids[0]
		}
		out[i] = NewChange{EventID: ev, Type: ChangeEmailStatus, Data: data}
	}
	return out
}
