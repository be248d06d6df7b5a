package rest

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

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

// limiter holds one bucket per API key. Buckets live in this process only: behind a load balancer
// each server rations its own share.
type limiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
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
	return &limiter{cfg: cfg, buckets: map[string]*bucket{}}
}

// allow takes a token for the key, writing the RateLimit headers; it returns the refusal when
// none is left. A nil limiter allows everything.
func (l *limiter) allow(w http.ResponseWriter, keyID string) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	burst := float64(l.cfg.Burst)
	l.mu.Lock()
	b, ok := l.buckets[keyID]
	if !ok {
		if len(l.buckets) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{tokens: burst, last: now}
		l.buckets[keyID] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*l.cfg.PerSecond)
	b.last = now
	allowed := b.tokens >= 1
	if allowed {
		b.tokens--
	}
	tokens := b.tokens
	l.mu.Unlock()

	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.cfg.Burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(math.Floor(tokens))))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((burst-tokens)/l.cfg.PerSecond))))
	if allowed {
		return nil
	}
	wait := int(math.Ceil((1 - tokens) / l.cfg.PerSecond))
	h.Set("Retry-After", strconv.Itoa(max(wait, 1)))
	return apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited,
		"Too many requests for this API key; retry after "+strconv.Itoa(max(wait, 1))+" s")
}

// prune forgets the buckets that have refilled; the caller holds the lock.
func (l *limiter) prune(now time.Time) {
	for id, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.cfg.PerSecond >= float64(l.cfg.Burst) {
			delete(l.buckets, id)
		}
	}
}
