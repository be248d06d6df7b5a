package rest

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/time/rate"

	"github.com/podium/podium/graph/apperr"
)

// RateLimit rations each API key's requests with a token bucket: Burst requests at once, refilled
// at PerSecond. A request finding the bucket empty is answered 429 rate_limited with Retry-After.
// Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (the
// IETF draft's header fields), so clients can pace themselves before they are refused.
//
// The buckets live in PostgreSQL (the table rate_limit_buckets), so a key's limit holds across
// every Podium instance on the database: behind a load balancer, N instances still allow a key
// PerSecond, not N times it. Local keeps them in this process instead, which saves a statement per
// request where only one instance serves.
type RateLimit struct {
	// PerSecond is the sustained rate; 0 or less turns limiting off.
	PerSecond float64
	// Burst is the bucket's size; 0 means two seconds' worth.
	Burst int
	// Local keeps the buckets in this process: each instance then rations its own share.
	Local bool
}

// limiter rations requests per API key, in PostgreSQL (pool) or in this process (buckets). Both
// keep the same bucket and write the same headers; only where its state lives differs.
type limiter struct {
	cfg RateLimit
	// pool holds the shared buckets; nil when they are local.
	pool *pgxpool.Pool
	// mu guards buckets, and makes taking a token and reading what is left for the headers one
	// step, so that concurrent requests of one key each report their own remainder.
	mu      sync.Mutex
	buckets *buckets
}

// maxBuckets bounds memory: past it, full buckets (idle keys) are forgotten.
const maxBuckets = 10_000

// buckets are token buckets of one rate, one per key, kept in this process. Past maxBuckets keys,
// the buckets that have refilled are forgotten — never one that still holds back its key, so
// making up keys cannot buy anyone a fresh bucket. Callers serialize access.
type buckets struct {
	every rate.Limit
	burst int
	byKey map[string]*rate.Limiter
}

func newBuckets(every rate.Limit, burst int) *buckets {
	return &buckets{every: every, burst: burst, byKey: map[string]*rate.Limiter{}}
}

// of returns key's bucket, making a full one for a new key.
func (b *buckets) of(key string, now time.Time) *rate.Limiter {
	l, ok := b.byKey[key]
	if !ok {
		if len(b.byKey) >= maxBuckets {
			for k, l := range b.byKey {
				if l.TokensAt(now) >= float64(b.burst) {
					delete(b.byKey, k)
				}
			}
		}
		l = rate.NewLimiter(b.every, b.burst)
		b.byKey[key] = l
	}
	return l
}

// newLimiter returns the limiter of cfg, sharing its buckets through pool unless cfg.Local (or
// pool is nil); nil when cfg does not limit.
func newLimiter(cfg RateLimit, pool *pgxpool.Pool) *limiter {
	if cfg.PerSecond <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = int(math.Ceil(2 * cfg.PerSecond))
	}
	l := &limiter{cfg: cfg}
	if cfg.Local || pool == nil {
		l.buckets = newBuckets(rate.Limit(cfg.PerSecond), cfg.Burst)
	} else {
		l.pool = pool
	}
	return l
}

// allow takes a token for the key, writing the RateLimit headers; it returns the refusal when
// none is left, or the database's error when the shared bucket could not be read (a request that
// cannot reach PostgreSQL could do nothing else anyway). A nil limiter allows everything.
func (l *limiter) allow(ctx context.Context, w http.ResponseWriter, keyID string) error {
	if l == nil {
		return nil
	}
	var allowed bool
	var tokens float64
	if l.pool != nil {
		var err error
		if allowed, tokens, err = l.takeShared(ctx, keyID); err != nil {
			return err
		}
	} else {
		allowed, tokens = l.takeLocal(keyID)
	}

	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.cfg.Burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(int(math.Floor(tokens)), 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(l.cfg.Burst)-tokens)/l.cfg.PerSecond))))
	if allowed {
		return nil
	}
	wait := max(int(math.Ceil((1-tokens)/l.cfg.PerSecond)), 1)
	h.Set("Retry-After", strconv.Itoa(wait))
	return apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited,
		"Too many requests for this API key; retry after "+strconv.Itoa(wait)+" s")
}

// takeLocal takes a token from the key's bucket in this process, returning whether it had one
// and the tokens left.
func (l *limiter) takeLocal(keyID string) (allowed bool, tokens float64) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets.of(keyID, now)
	allowed = b.AllowN(now, 1)
	return allowed, b.TokensAt(now)
}

// takeSQL is the shared bucket as GCRA (the generic cell rate algorithm), which needs one
// timestamp per key instead of a count and a time: tat, the theoretical arrival time, is when the
// bucket would be full again. A request is allowed when advancing tat by one interval
// ($2 = 1/PerSecond s) leaves it at most Burst intervals ($3 s) ahead of now; the tokens left are
// Burst minus the intervals tat is ahead. It is one statement — the row lock of the upsert orders
// concurrent requests of a key, across instances — and the clock is the database's, so instances
// whose clocks differ still share one bucket. Every SET expression reads the row as it was.
const takeSQL = `INSERT INTO rate_limit_buckets AS b (api_key_id, tat, allowed)
VALUES ($1, now() + make_interval(secs => $2), true)
ON CONFLICT (api_key_id) DO UPDATE SET
  allowed = greatest(b.tat, now()) + make_interval(secs => $2) <= now() + make_interval(secs => $3),
  tat = CASE WHEN greatest(b.tat, now()) + make_interval(secs => $2) <= now() + make_interval(secs => $3)
    THEN greatest(b.tat, now()) + make_interval(secs => $2) ELSE b.tat END
RETURNING allowed, extract(epoch FROM tat - now())::float8`

// takeShared takes a token from the key's bucket in PostgreSQL.
func (l *limiter) takeShared(ctx context.Context, keyID string) (allowed bool, tokens float64, err error) {
	interval := 1 / l.cfg.PerSecond
	var ahead float64
	if err := l.pool.QueryRow(ctx, takeSQL, keyID, interval, float64(l.cfg.Burst)*interval).Scan(&allowed, &ahead); err != nil {
		return false, 0, fmt.Errorf("rest: rate limit of key %s: %w", keyID, err)
	}
	// PostgreSQL keeps microseconds: without the slack, an interval rounded up by half a
	// microsecond would report one token less than is left.
	return allowed, float64(l.cfg.Burst) - ahead/interval + 1e-6, nil
}
