package operation

import (
	"testing"

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
