package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestByteLRU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	size := func(key string, _ int) int { return len(key) }

	t.Run("EvictsTheLeastRecentlyUsedToStayWithinItsBytes", func(t *testing.T) {
		t.Parallel()
		c := newByteLRU(100, size)
		a, b, d := strings.Repeat("a", 25), strings.Repeat("b", 25), strings.Repeat("d", 25)
		c.Add(ctx, a, 1)
		c.Add(ctx, b, 2)
		c.Add(ctx, d, 3)
		_, ok := c.Get(ctx, a) // a is now the most recently used
		require.True(t, ok)
		c.Add(ctx, strings.Repeat("e", 25), 4)
		c.Add(ctx, strings.Repeat("f", 25), 5) // over 100 bytes: b, the oldest, goes
		_, ok = c.Get(ctx, b)
		require.False(t, ok)
		v, ok := c.Get(ctx, a)
		require.True(t, ok)
		require.Equal(t, 1, v)
		require.LessOrEqual(t, c.used, 100)
	})

	t.Run("KeepsNoEntryOverAQuarterOfItsBytes", func(t *testing.T) {
		t.Parallel()
		c := newByteLRU(100, size)
		c.Add(ctx, "small", 1)
		c.Add(ctx, strings.Repeat("x", 26), 2)
		_, ok := c.Get(ctx, strings.Repeat("x", 26))
		require.False(t, ok, "an oversized document is not cached")
		_, ok = c.Get(ctx, "small")
		require.True(t, ok, "nor does it evict anything")
	})

	t.Run("ReplacingAnEntryCountsItsNewSize", func(t *testing.T) {
		t.Parallel()
		c := newByteLRU(100, func(_ string, v int) int { return v })
		c.Add(ctx, "k", 10)
		c.Add(ctx, "k", 20)
		require.Equal(t, 20, c.used)
		require.Len(t, c.entries, 1)
	})

	t.Run("PersistedQueriesCountTheirDocument", func(t *testing.T) {
		t.Parallel()
		c := newByteLRU(documentCacheBytes, persistedQuerySize)
		c.Add(ctx, "hash", strings.Repeat("{a}", 1<<20)) // a 3 MiB document behind a short hash
		_, ok := c.Get(ctx, "hash")
		require.False(t, ok)
		require.Zero(t, c.used)
	})
}
