package jobs

import (
	"context"
	"sync"
	"time"
)

// batch runs many small statements as one: calls that arrive while a statement is running wait,
// and the next statement serves all of them. Under load batches grow by themselves; alone, a call
// runs at once. It is group commit for the delivery worker's bookkeeping, as River does for its
// job completions.
type batch[Req, Res any] struct {
	// exec runs one statement for reqs and returns a result for each, in order.
	exec func(ctx context.Context, reqs []Req) ([]Res, error)
	// expect, when set, says how many calls are under way now — begun elsewhere, and soon to be
	// made here. A call about to run a statement then waits, for at most linger, until that many
	// are pending, so that one statement serves them all: a statement costs much more than a row
	// (BenchmarkWebhookSuccessRows).
	expect func() int
	linger time.Duration
	// arrived is signalled when a call joins while the leader waits for more (gathering).
	arrived   chan struct{}
	gathering bool

	mu      sync.Mutex
	running bool
	pending []*batchCall[Req, Res]
}

type batchCall[Req, Res any] struct {
	req  Req
	res  Res
	err  error
	lead bool
	wake chan struct{}
}

// do runs req, alone or together with concurrent calls.
func (b *batch[Req, Res]) do(ctx context.Context, req Req) (Res, error) {
	c := &batchCall[Req, Res]{req: req, wake: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, c)
	if b.gathering {
		select {
		case b.arrived <- struct{}{}:
		default:
		}
	}
	if b.running {
		b.mu.Unlock()
		<-c.wake
		if !c.lead {
			return c.res, c.err
		}
		b.mu.Lock()
	}
	// This call leads: it runs everything pending, itself included, then hands the lead to a
	// call that arrived meanwhile, if any, so that no caller waits for more than two statements.
	b.running = true
	b.gather()
	calls := b.pending
	b.pending = nil
	b.mu.Unlock()

	reqs := make([]Req, len(calls))
	for i, cl := range calls {
		reqs[i] = cl.req
	}
	res, err := b.exec(context.WithoutCancel(ctx), reqs)
	for i, cl := range calls {
		if err != nil {
			cl.err = err
		} else {
			cl.res = res[i]
		}
		if cl != c {
			close(cl.wake)
		}
	}

	b.mu.Lock()
	if len(b.pending) > 0 {
		next := b.pending[0]
		next.lead = true
		close(next.wake)
	} else {
		b.running = false
	}
	b.mu.Unlock()
	return c.res, c.err
}

// gather waits, with b.mu held on entry and on return, until as many calls are pending as expect
// says are under way, for at most linger.
func (b *batch[Req, Res]) gather() {
	if b.expect == nil || b.linger <= 0 || len(b.pending) >= b.expect() {
		return
	}
	if b.arrived == nil {
		b.arrived = make(chan struct{}, 1)
	}
	timer := time.NewTimer(b.linger)
	defer timer.Stop()
	for len(b.pending) < b.expect() {
		b.gathering = true
		b.mu.Unlock()
		timedOut := false
		select {
		case <-b.arrived:
		case <-timer.C:
			timedOut = true
		}
		b.mu.Lock()
		b.gathering = false
		if timedOut {
			return
		}
	}
}
