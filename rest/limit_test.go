package rest

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
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

// BenchmarkLimiter is the cost of rationing one request: in the process; in PostgreSQL with
// leases (Shared); and in PostgreSQL one statement per request (Statement: leases of one token, as
// a small bucket or a key seldom used on an instance gets — the difference being the latency
// added to each limited request). Parallel runs 16 requests at once (8 per CPU) of one key, whose
// upserts queue on the key's row lock, and of many keys.
func BenchmarkLimiter(b *testing.B) {
	db := pgtest.New(b)
	ctx := viewer.System(context.Background(), "benchmark: rate limit buckets of made-up keys")
	for _, store := range []struct {
		name     string
		pool     *pgxpool.Pool
		maxLease int
	}{{"Local", nil, 0}, {"Shared", db.Pool, 0}, {"Statement", db.Pool, 1}} {
		limiter := func() *limiter {
			l := newLimiter(RateLimit{PerSecond: 1e9, Burst: 1e9}, store.pool)
			if store.maxLease > 0 {
				l.maxLease = store.maxLease
			}
			return l
		}
		b.Run(store.name, func(b *testing.B) {
			l := limiter()
			w := httptest.NewRecorder()
			for b.Loop() {
				if err := l.allow(ctx, w, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, keys := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/Parallel/Keys=%d", store.name, keys), func(b *testing.B) {
				l := limiter()
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

// Making up addresses does not reset sign-in limits: past maxBuckets, only refilled buckets go.
func TestSignInLimitSurvivesAFloodOfAddresses(t *testing.T) {
	t.Parallel()
	s := newSignIn(nil, "", nil)
	for range signInAddressBurst {
		require.True(t, s.allow("ada@example.test", fmt.Sprint("client-", t.Name())))
	}
	require.False(t, s.allow("ada@example.test", "another client"), "the address has spent its links")
	for i := range maxBuckets + 10 {
		s.allow(fmt.Sprintf("made-up-%d@example.test", i), fmt.Sprint("client-", i))
	}
	require.False(t, s.allow("ada@example.test", "yet another client"), "the flood did not refill the address")
}

// limitCtx is the context of the shared limiter's statements in these tests.
func limitCtx() context.Context {
	return viewer.System(context.Background(), "test: rate limit buckets of made-up keys")
}

// A key busy on one instance leases tokens: a thousand requests in a row send a few dozen
// statements, not a thousand, and RateLimit-Remaining still counts down one by one.
func TestLimiterLeasesTokens(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	l := newLimiter(RateLimit{PerSecond: 1000, Burst: 2000}, db.Pool)
	require.Equal(t, 64, l.maxLease)
	before := db.Queries.Load()
	last := 2000
	for i := range 1000 {
		w := httptest.NewRecorder()
		require.NoError(t, l.allow(limitCtx(), w, "busy"), "request %d", i)
		var remaining int
		_, err := fmt.Sscan(w.Header().Get("RateLimit-Remaining"), &remaining)
		require.NoError(t, err)
		// One token less each time, give or take what the bucket refilled since the last lease.
		require.LessOrEqual(t, last-remaining, 1, "request %d", i)
		require.Less(t, remaining, 2000)
		last = remaining
	}
	statements := db.Queries.Load() - before
	t.Logf("1,000 requests, %d statements", statements)
	require.Less(t, statements, int64(100))
	require.Positive(t, statements)

	// A small bucket or a slow rate leases one token at a time: every request asks.
	require.Equal(t, 1, newLimiter(RateLimit{PerSecond: 100, Burst: 39}, db.Pool).maxLease)
	require.Equal(t, 1, newLimiter(RateLimit{PerSecond: 19, Burst: 1000}, db.Pool).maxLease)
	require.Equal(t, 4, newLimiter(RateLimit{PerSecond: 20, Burst: 40}, db.Pool).maxLease)
}

// Refused, a key is refused locally until the shared bucket can hold a token again: a flood of
// refused requests sends no statements.
func TestLimiterRemembersRefusals(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 2}, db.Pool)
	for range 2 {
		require.NoError(t, l.allow(limitCtx(), httptest.NewRecorder(), "flood"))
	}
	before := db.Queries.Load()
	w := httptest.NewRecorder()
	require.Error(t, l.allow(limitCtx(), w, "flood"))
	require.Equal(t, "1", w.Header().Get("Retry-After"))
	for range 100 {
		w := httptest.NewRecorder()
		require.Error(t, l.allow(limitCtx(), w, "flood"))
		require.Equal(t, "0", w.Header().Get("RateLimit-Remaining"))
		require.Equal(t, "1", w.Header().Get("Retry-After"))
	}
	require.Equal(t, int64(1), db.Queries.Load()-before)
	time.Sleep(time.Second)
	require.NoError(t, l.allow(limitCtx(), httptest.NewRecorder(), "flood"), "a token is back after 1 s")
}

// Three instances leasing from one key's bucket: clients as fast as they can get what the bucket
// allows over the run, within 10%; a client at 70% of the rate, spread over the instances, is
// never refused (leases that expire unspent do not starve it).
func TestLimiterLeasesAcrossInstances(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	cfg := RateLimit{PerSecond: 200, Burst: 200}
	var ls []*limiter
	for range 3 {
		db, err := dbx.Open(context.Background(), url, dbx.Options{MaxConns: 4})
		require.NoError(t, err)
		t.Cleanup(db.Close)
		ls = append(ls, newLimiter(cfg, db.Pool))
	}
	require.Equal(t, 20, ls[0].maxLease)

	t.Run("Greedy", func(t *testing.T) {
		var allowed atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		stop := start.Add(1500 * time.Millisecond)
		for i := range 12 {
			wg.Go(func() {
				for time.Now().Before(stop) {
					if ls[i%3].allow(limitCtx(), httptest.NewRecorder(), "greedy") == nil {
						allowed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		took := time.Since(start)
		want := float64(cfg.Burst) + cfg.PerSecond*took.Seconds()
		got := float64(allowed.Load())
		t.Logf("%.0f allowed in %s, %.0f expected", got, took.Round(time.Millisecond), want)
		require.InEpsilon(t, want, got, 0.10)
		require.LessOrEqual(t, got, want+cfg.PerSecond*leaseTTL.Seconds())
	})

	t.Run("Steady", func(t *testing.T) {
		tick := time.NewTicker(time.Second / 140)
		defer tick.Stop()
		refused := 0
		for i := range 280 {
			<-tick.C
			if ls[i%3].allow(limitCtx(), httptest.NewRecorder(), "steady") != nil {
				refused++
			}
		}
		require.Zero(t, refused)
	})
}

// While PostgreSQL does not answer, a key's requests on an instance fail together after one
// statement's wait, not one after the other: they never queue behind each other's statements.
func TestLimiterDoesNotQueueAKeysRequests(t *testing.T) {
	t.Parallel()
	// A server that accepts connections and never answers: every connection attempt waits for
	// its timeout (1 s).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	pool, err := pgxpool.New(context.Background(), "postgres://podium@"+ln.Addr().String()+"/podium?connect_timeout=1&sslmode=disable")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	l := newLimiter(RateLimit{PerSecond: 100, Burst: 200}, pool)

	start := time.Now()
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if l.allow(limitCtx(), httptest.NewRecorder(), "away") != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 8, failed.Load())
	require.Less(t, time.Since(start), 4*time.Second, "eight requests one after the other would take 8 s")
}
