package operation

import (
	"slices"

	"testing"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/jobs"
	"github.com/stretchr/testify/require"
)

// TestRecentForgetsTheOldest: recent skips an id it holds, holds at most n, forgetting the
// oldest first; a nil recent takes every id as new.
func TestRecentForgetsTheOldest(t *testing.T) {
	t.Parallel()
	r := newRecent(3)
	for _, id := range []int64{1, 2, 3} {
		require.True(t, r.add(id))
	}
	require.False(t, r.add(2))
	require.True(t, r.add(4)) // forgets 1
	require.True(t, r.add(1)) // forgets 2
	require.False(t, r.add(3))
	require.False(t, r.add(4))
	require.True(t, r.add(2))
	require.Len(t, r.ids, 3)
	var none *recent
	require.True(t, none.add(1))
	require.True(t, none.add(1))
}

// TestEventChangeOfCarriesItsCount: an email status change's count reaches GraphQL as a number;
// a change without one has none.
func TestEventChangeOfCarriesItsCount(t *testing.T) {
	t.Parallel()
	c := eventChangeOf(jobs.Change{ID: 7, EventID: "evt_1", Type: "email.status_changed",
		Data: map[string]string{"status": "sent", "count": "3"}})
	require.Equal(t, model.EventChangeTypeEmailStatusChanged, c.Type)
	require.Equal(t, "7", c.Cursor)
	require.NotNil(t, c.Count)
	require.Equal(t, 3, *c.Count)
	require.Nil(t, c.EmailID)
	require.Nil(t, eventChangeOf(jobs.Change{Type: "session.created", Data: map[string]string{}}).Count)
}

// TestMyReviewChangeOfCountsBulkAssignments: a reviewer's change standing for several assignments
// carries their count and no assignment; one naming an assignment carries no count.
func TestMyReviewChangeOfCountsBulkAssignments(t *testing.T) {
	t.Parallel()
	bulk := myReviewChangeOf(jobs.Change{ID: 9, Type: "review.assigned", Data: map[string]string{"roundId": "rnd_1", "count": "4"}})
	require.Nil(t, bulk.AssignmentID)
	require.NotNil(t, bulk.Count)
	require.Equal(t, 4, *bulk.Count)
	one := myReviewChangeOf(jobs.Change{ID: 10, Type: "review.assigned", Data: map[string]string{"assignmentId": "asg_1"}})
	require.Equal(t, "asg_1", *one.AssignmentID)
	require.Nil(t, one.Count)
}

// TestWebhookTypesAreChangeTypes: every webhook event type an event's change records (emit
// records both when the payload names an event) is a value of EventChangeType, and goes back to
// its name; the organization-wide types name no event and record no change.
func TestWebhookTypesAreChangeTypes(t *testing.T) {
	t.Parallel()
	orgWide := []string{hookEmailFailed, hookEmailSuppressed, hookEmailUnsuppressed}
	for _, name := range WebhookEventTypes {
		if slices.Contains(orgWide, name) {
			continue
		}
		ct := ChangeType(name)
		require.True(t, ct.IsValid(), "%s: EventChangeType has no %s", name, ct)
		require.Equal(t, name, changeTypeName(ct))
	}
}
