package rest

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/podium/podium/graph/apperr"
)

// RateLimit rations each API key's requests with a token bucket: Burst requests at once, refilled
// at PerSecond. A request finding the bucket empty is answered 429 rate_limited with Retry-After.
// Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (the
// IETF draft's header fields), so clients can pace themselves before they are refused.
type RateLimit struct {
	// PerSecond is the sustained rate; 0 or less turns limiting off.
	PerSecond float64
	// Burst is the bucket's size; 0 means two seconds' worth.
	Burst int
}

// limiter holds one bucket (a rate.Limiter) per API key. Buckets live in this process only:
// behind a load balancer each server rations its own share.
type limiter struct {
	cfg RateLimit
	// mu guards buckets, and makes taking a token and reading what is left for the headers one
	// step, so that concurrent requests of one key each report their own remainder.
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// maxBuckets bounds memory: past it, full buckets (idle keys) are forgotten.
const maxBuckets = 10_000

func newLimiter(cfg RateLimit) *limiter {
	if cfg.PerSecond <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = int(math.Ceil(2 * cfg.PerSecond))
	}
	return &limiter{cfg: cfg, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token for the key, writing the RateLimit headers; it returns the refusal when
// none is left. A nil limiter allows everything.
func (l *limiter) allow(w http.ResponseWriter, keyID string) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	l.mu.Lock()
	b, ok := l.buckets[keyID]
	if !ok {
		if len(l.buckets) >= maxBuckets {
			l.prune(now)
		}
		b = rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)
		l.buckets[keyID] = b
	}
	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	l.mu.Unlock()

	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.cfg.Burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(math.Floor(tokens))))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(l.cfg.Burst)-tokens)/l.cfg.PerSecond))))
	if allowed {
		return nil
	}
	wait := max(int(math.Ceil((1-tokens)/l.cfg.PerSecond)), 1)
	h.Set("Retry-After", strconv.Itoa(wait))
	return apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited,
		"Too many requests for this API key; retry after "+strconv.Itoa(wait)+" s")
}

// prune forgets the buckets that have refilled; the caller holds the lock.
func (l *limiter) prune(now time.Time) {
	for id, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.cfg.Burst) {
			delete(l.buckets, id)
		}
	}
}
