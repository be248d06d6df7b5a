package pid

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNew(t *testing.T) {
	t.Parallel()

	t.Run("ShapeAndPrefix", func(t *testing.T) {
		t.Parallel()
		id := New("evt")
		require.Len(t, id, len("evt_")+26)
		require.Equal(t, "evt", Prefix(id))
		for _, c := range id[4:] {
			require.True(t, strings.ContainsRune(alphabet, c), "unexpected %q in %s", c, id)
		}
	})

	t.Run("UniqueAndTimeOrdered", func(t *testing.T) {
		t.Parallel()
		seen := make(map[string]bool)
		prev := New("x")
		for range 2000 {
			id := New("x")
			require.False(t, seen[id])
			seen[id] = true
			// Ids made in a later millisecond sort after earlier ones.
			require.GreaterOrEqual(t, id[:12], prev[:12])
			prev = id
		}
	})

	t.Run("Plausible", func(t *testing.T) {
		t.Parallel()
		require.True(t, Plausible(New("evt")))
		require.True(t, Plausible(New("oinv")))
		for _, s := range []string{"", "evt", "evt_", "evt_x", "EVT_01jd3k2m9q8r7s6t5v4w3x2y1z", "evt_01jd3k2m9q8r7s6t5v4w3x2y1u",
			"evt_01jd3k2m9q8r7s6t5v4w3x2y1z0", "\x00", "_01jd3k2m9q8r7s6t5v4w3x2y1z"} {
			require.False(t, Plausible(s), s)
		}
	})

	t.Run("PrefixOfBareString", func(t *testing.T) {
		t.Parallel()
		require.Empty(t, Prefix("nounderscore"))
		require.Empty(t, Prefix("_x"))
	})
}
