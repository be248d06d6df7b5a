package rest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
)

// Past maxBuckets keys, the local limiter forgets the buckets that have refilled, and only those:
// a key that spent its tokens keeps being rationed.
func TestLimiterForgetsOnlyFullBuckets(t *testing.T) {
	t.Parallel()
	fill := func(l *limiter) {
		for i := range maxBuckets {
			require.NoError(t, l.allow(t.Context(), httptest.NewRecorder(), fmt.Sprint("key", i)))
		}
		require.Len(t, l.buckets.byKey, maxBuckets)
		require.NoError(t, l.allow(t.Context(), httptest.NewRecorder(), "one more"))
	}

	t.Run("Refilled", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(RateLimit{PerSecond: 1e12, Burst: 1}, nil)
		fill(l)
		require.Len(t, l.buckets.byKey, 1)
	})

	t.Run("Spent", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(RateLimit{PerSecond: 0.001, Burst: 1}, nil)
		fill(l)
		require.Len(t, l.buckets.byKey, maxBuckets+1)
		require.Error(t, l.allow(t.Context(), httptest.NewRecorder(), "key0"))
	})
}

// BenchmarkLimiter is the cost of rationing one request: in the process, and in PostgreSQL (one
// statement, the difference being the latency added to each limited request). Parallel runs 16
// requests at once (8 per CPU) of one key, whose upserts queue on the key's row lock, and of many keys.
func BenchmarkLimiter(b *testing.B) {
	db := pgtest.New(b)
	ctx := viewer.System(context.Background(), "benchmark: rate limit buckets of made-up keys")
	for _, store := range []struct {
		name string
		pool *pgxpool.Pool
	}{{"Local", nil}, {"Shared", db.Pool}} {
		b.Run(store.name, func(b *testing.B) {
			l := newLimiter(RateLimit{PerSecond: 1e9, Burst: 1e9}, store.pool)
			w := httptest.NewRecorder()
			for b.Loop() {
				if err := l.allow(ctx, w, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, keys := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/Parallel/Keys=%d", store.name, keys), func(b *testing.B) {
				l := newLimiter(RateLimit{PerSecond: 1e9, Burst: 1e9}, store.pool)
				var n atomic.Int64
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					key := fmt.Sprint("bench-", n.Add(1)%int64(keys))
					w := httptest.NewRecorder()
					for pb.Next() {
						if err := l.allow(ctx, w, key); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
