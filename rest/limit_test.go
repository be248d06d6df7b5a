package rest

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// Past maxBuckets keys, the limiter forgets the buckets that have refilled, and only those: a key
// that spent its tokens keeps being rationed.
func TestLimiterForgetsOnlyFullBuckets(t *testing.T) {
	t.Parallel()
	fill := func(l *limiter) {
		for i := range maxBuckets {
			require.NoError(t, l.allow(httptest.NewRecorder(), fmt.Sprint("key", i)))
		}
		require.Len(t, l.buckets, maxBuckets)
		require.NoError(t, l.allow(httptest.NewRecorder(), "one more"))
	}

	t.Run("Refilled", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(RateLimit{PerSecond: 1e12, Burst: 1})
		fill(l)
		require.Len(t, l.buckets, 1)
	})

	t.Run("Spent", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(RateLimit{PerSecond: 0.001, Burst: 1})
		fill(l)
		require.Len(t, l.buckets, maxBuckets+1)
		require.Error(t, l.allow(httptest.NewRecorder(), "key0"))
	})
}
