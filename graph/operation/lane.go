package operation

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Lane gives cheap requests the cores before expensive GraphQL operations: while a cheap request
// is in flight, each resolver of an expensive operation waits for it (MaxPause at most) before
// it starts. gqlgen resolves the items of a list in goroutines of their own, so an expensive
// operation keeps thousands of goroutines runnable and a cheap request's goroutine, woken by its
// database answer, queues behind them on every round trip; paused, they leave the cores to it.
type Lane struct {
	// MaxPause bounds one wait of a resolver, so a stream of cheap requests slows an expensive
	// operation but cannot stop it; its time budget still applies.
	MaxPause time.Duration
	// MaxHold bounds how long one cheap request stays in the lane: a download to a slow client or
	// a long export does not hold expensive operations back for all its length.
	MaxHold time.Duration

	cheap atomic.Int64
	mu    sync.Mutex
	clear chan struct{} // closed when the last cheap request leaves
}

// NewLane returns a Lane with a pause of 50 ms and a hold of 1 s.
func NewLane() *Lane { return &Lane{MaxPause: 50 * time.Millisecond, MaxHold: time.Second} }

// Enter marks a cheap request in flight until leave is called, MaxHold at most. A nil Lane does
// nothing.
func (l *Lane) Enter() (leave func()) {
	if l == nil {
		return func() {}
	}
	l.mu.Lock()
	if l.cheap.Add(1) == 1 {
		l.clear = make(chan struct{})
	}
	l.mu.Unlock()
	var once sync.Once
	out := func() {
		once.Do(func() {
			l.mu.Lock()
			if l.cheap.Add(-1) == 0 {
				close(l.clear)
			}
			l.mu.Unlock()
		})
	}
	if l.MaxHold > 0 {
		hold := time.AfterFunc(l.MaxHold, out)
		return func() { hold.Stop(); out() }
	}
	return out
}

// Yield waits while a cheap request is in flight, MaxPause at most.
func (l *Lane) Yield(ctx context.Context) {
	if l == nil || l.cheap.Load() == 0 {
		return
	}
	l.mu.Lock()
	empty := l.clear
	busy := l.cheap.Load() > 0
	l.mu.Unlock()
	if !busy {
		return
	}
	t := time.NewTimer(l.MaxPause)
	defer t.Stop()
	select {
	case <-empty:
	case <-t.C:
	case <-ctx.Done():
	}
}
