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
// PerSecond, not N times it. Local keeps them in this process instead, which saves the statements
// where only one instance serves.
//
// An instance does not ask PostgreSQL for every request. It leases tokens: a key busy on this
// instance takes a few tokens from the shared bucket in one statement and spends them locally
// (see lease), and a refusal is remembered until the shared bucket can hold a token again.
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
	// mu guards buckets and leases (the map; each lease has its own lock). For local buckets it
	// makes taking a token and reading what is left for the headers one step, so that
	// concurrent requests of one key each report their own remainder.
	mu      sync.Mutex
	buckets *buckets
	leases  map[string]*lease
	// maxLease is the most tokens one lease takes (see leaseSize).
	maxLease int
}

// leaseTTL is how long leased tokens may be spent. Tokens are taken from the shared bucket when
// leased, so over any span of time the instances together allow at most what the bucket allows
// over that span plus leaseTTL: PerSecond × leaseTTL requests more at worst (20 at 100/s),
// whatever the number of instances. Tokens not spent in time are lost.
const leaseTTL = 200 * time.Millisecond

// maxLeaseTokens caps a lease whatever the rate.
const maxLeaseTokens = 64

// minLeaseTokens is the smallest cap worth leasing with: below it leases save little, and at the
// modest paces of such limits their tokens expire unspent too often (the three-instance test at
// 25/s lost a fifth of its allowance to leases of 2).
const minLeaseTokens = 4

// leaseSize is the most tokens one lease takes for cfg: at most a tenth of the bucket, so that no
// instance can hold much of a key's bucket while another is refused, at most what the rate
// refills in leaseTTL, at most maxLeaseTokens. Below minLeaseTokens it is 1 — with a bucket of
// fewer than 40 tokens, or a rate under 20/s — and every request asks PostgreSQL, as without
// leasing.
func leaseSize(cfg RateLimit) int {
	n := int(min(float64(cfg.Burst)/10, cfg.PerSecond*leaseTTL.Seconds(), maxLeaseTokens))
	if n < minLeaseTokens {
		return 1
	}
	return n
}

// lease is this process's share of one key's shared bucket. Its lock guards the fields and is
// never held across a statement: requests of one key that find no tokens each send their own
// statement, as without leases, so a slow database never makes them queue behind each other.
type lease struct {
	mu sync.Mutex
	// left tokens may be spent until expires; spent were spent of the current lease, taken at
	// taken.
	left, spent    int
	taken, expires time.Time
	// shared is what the shared bucket held after the last lease was taken, for the headers.
	shared float64
	// refusedUntil is when the shared bucket will hold a token again, after a refusal: until
	// then requests are refused without asking (other instances can only take tokens).
	refusedUntil time.Time
}

// idle reports whether l holds nothing worth keeping at now: no tokens, no refusal.
func (l *lease) idle(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return (l.left == 0 || now.After(l.expires)) && !now.Before(l.refusedUntil)
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
		l.pool, l.leases, l.maxLease = pool, map[string]*lease{}, leaseSize(cfg)
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
// bucket would be full again. Taking n tokens is allowed when advancing tat by n intervals
// ($2 = n/PerSecond s) leaves it at most Burst intervals ($3 s) ahead of now; the tokens left are
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

// leaseOf returns the key's lease, making an empty one for a new key. Past maxBuckets keys, the
// idle leases are forgotten.
func (l *limiter) leaseOf(keyID string, now time.Time) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls, ok := l.leases[keyID]
	if !ok {
		if len(l.leases) >= maxBuckets {
			for k, other := range l.leases {
				if other.idle(now) {
					delete(l.leases, k)
				}
			}
		}
		ls = &lease{}
		l.leases[keyID] = ls
	}
	return ls
}

// takeShared takes a token for the key: from this instance's lease while it lasts, else from the
// key's bucket in PostgreSQL, leasing a few more when the key is busy here. It returns whether a
// token was there and the tokens left (the shared bucket's and the lease's).
func (l *limiter) takeShared(ctx context.Context, keyID string) (allowed bool, tokens float64, err error) {
	now := time.Now()
	ls := l.leaseOf(keyID, now)
	ls.mu.Lock()
	if ls.left > 0 && now.Before(ls.expires) {
		ls.left--
		ls.spent++
		tokens = ls.shared + float64(ls.left)
		ls.mu.Unlock()
		return true, tokens, nil
	}
	if now.Before(ls.refusedUntil) {
		tokens = max(0, 1-ls.refusedUntil.Sub(now).Seconds()*l.cfg.PerSecond)
		ls.mu.Unlock()
		return false, tokens, nil
	}
	want := l.nextLease(ls, now)
	ls.mu.Unlock()

	// A lease is all or nothing; when the bucket holds fewer tokens than asked, ask again for
	// what it holds, then give up.
	for {
		allowed, tokens, err = l.takeTokens(ctx, keyID, want)
		if err != nil {
			return false, 0, err
		}
		if allowed || tokens < 1 || want == 1 {
			break
		}
		want = min(want-1, int(tokens))
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !allowed {
		ls.refusedUntil = now.Add(time.Duration((1 - tokens) / l.cfg.PerSecond * float64(time.Second)))
		return false, tokens, nil
	}
	if ls.left > 0 && now.Before(ls.expires) {
		// Another request of the key leased meanwhile: the tokens join its lease and expire
		// with it, never later than their own lease would.
		ls.left += want - 1
		ls.spent++
	} else {
		ls.left, ls.spent, ls.taken, ls.expires = want-1, 1, now, now.Add(leaseTTL)
	}
	ls.shared = tokens
	return true, tokens + float64(ls.left), nil
}

// nextLease is how many tokens the next lease of ls asks for at now: what the key spent here at
// the pace of the last lease over half of leaseTTL, within 1 and maxLease. A lease then runs out
// about halfway through its life while the pace holds, and few tokens are lost when it drops.
func (l *limiter) nextLease(ls *lease, now time.Time) int {
	if ls.spent == 0 || l.maxLease == 1 {
		return 1
	}
	// Over less than an eighth of leaseTTL the pace is not known well enough: at most it
	// quadruples from one lease to the next.
	elapsed := min(max(now.Sub(ls.taken), leaseTTL/8), leaseTTL)
	n := math.Ceil(float64(ls.spent) / elapsed.Seconds() * leaseTTL.Seconds() / 2)
	return int(min(max(n, 1), float64(l.maxLease)))
}

// takeTokens takes n tokens at once from the key's bucket in PostgreSQL, or none when it holds
// fewer, and returns the tokens left there.
func (l *limiter) takeTokens(ctx context.Context, keyID string, n int) (allowed bool, tokens float64, err error) {
	interval := 1 / l.cfg.PerSecond
	var ahead float64
	if err := l.pool.QueryRow(ctx, takeSQL, keyID, float64(n)*interval, float64(l.cfg.Burst)*interval).Scan(&allowed, &ahead); err != nil {
		return false, 0, fmt.Errorf("rest: rate limit of key %s: %w", keyID, err)
	}
	// PostgreSQL keeps microseconds: without the slack, an interval rounded up by half a
	// microsecond would report one token less than is left.
	return allowed, float64(l.cfg.Burst) - ahead/interval + 1e-6, nil
}
