package operation

import (
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
