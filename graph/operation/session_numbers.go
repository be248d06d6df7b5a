package operation

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/submission"
)

// nextNumber returns the next submission number of the event: 1 + the highest used, drafts
// included. The event's row is locked for the rest of the transaction (lockEvent), so numbers are
// never handed out twice.
func nextNumber(ctx context.Context, c *ent.Client, eventID string) (int, error) {
	if _, err := lockEvent(ctx, c, eventID); err != nil {
		return 0, err
	}
	var out []struct {
		Max *int `json:"max"`
	}
	err := c.Submission.Query().Where(submission.EventID(eventID)).
		Aggregate(ent.Max(submission.FieldNumber)).Scan(ctx, &out)
	if err != nil {
		return 0, err
	}
	if len(out) == 0 || out[0].Max == nil {
		return 1, nil
	}
	return *out[0].Max + 1, nil
}

// pendingNumbers is where the provisional numbers of sessions being created start (pendingNumber):
// far above any real number, so that numberSession's maximum ignores them.
const pendingNumbers = 1 << 52

// pendingNumber is the provisional number of the session id until numberSession numbers it, in
// the same transaction: unique in practice (the id's random bits), so that sessions created at
// once do not meet on the event's unique numbers — and were two to meet, the second would only
// wait for the first to commit, by which time the first holds its real number.
func pendingNumber(id string) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return pendingNumbers + int(h.Sum64()>>24)
}

// sessionCode is the code of the session numbered n.
func sessionCode(n int) string { return fmt.Sprintf("SESS-%d", n) }

// numberSessionSQL gives the session $2 of the event $1 its number and code: 1 + the highest number
// used, provisional numbers aside.
const numberSessionSQL = `UPDATE submissions SET number = m.n, code = 'SESS-' || m.n
FROM (SELECT COALESCE(MAX(number), 0) + 1 AS n FROM submissions WHERE event_id = $1 AND number < $3) m
WHERE id = $2 RETURNING m.n`

// numberSession numbers a session created in this transaction with a provisional number
// (pendingNumber), as nextNumber does: it locks the event for the rest of the transaction, which
// is then only the commit.
func (r *Service) numberSession(ctx context.Context, c *ent.Client, eventID, id string) (int, error) {
	if _, err := lockEvent(ctx, c, eventID); err != nil {
		return 0, err
	}
	var n int
	err := r.sql(ctx).QueryRow(ctx, numberSessionSQL, eventID, id, pendingNumbers).Scan(&n)
	return n, err
}
