package dbx

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/podium/podium/ent/schema/viewer"
)

// DefaultPersonConns bounds the pooled connections one signed-in person holds at once: enough for
// the loaders of one page to run side by side, few enough that a person's open tabs and scripts
// leave their organization's other members most of its share.
const DefaultPersonConns = 4

// connShare bounds the application pool's connections that the work of one organization, and of
// one signed-in person, holds at once (Options.PerOrganizationConns, PerPersonConns). Without it,
// one organization's burst of requests takes every connection and another organization's read
// queues behind all of it; with it, the burst queues behind its own share and the rest of the pool
// stays free for the others. A connection takes a slot of its person, then one of its
// organization, before it is acquired — a wait for a slot holds no connection, and a person's
// excess waits without holding their organization's slots — and gives them back when it returns
// to the pool. Slots are counted per key in a map of buffered channels, so that a connection
// costs two map lookups under one mutex and no allocation. An idle key's entry stays, to be
// reused by its next request; the idle ones are swept when the map reaches maxGates.
type connShare struct {
	perOrg, perPerson int // 0: no bound
	mu                sync.Mutex
	gates             map[gateKey]*gate
}

// gateKey names an organization, or (person) a user.
type gateKey struct {
	person bool
	id     string
}

// gate is the slots of one key.
type gate struct {
	slots chan struct{}
	users int // holders and waiters; an idle gate (0) may be swept
}

// maxGates is the size from which the map drops its idle gates when it needs a new one: a few
// kilobytes of idle entries, swept once per maxGates new keys at most.
const maxGates = 1024

// lease is the slots one connection holds; nil where it took none.
type lease struct{ org, person *gate }

// newConnShare returns the share for a pool of maxConns connections, or nil when both bounds are
// off. perOrg 0 is half the pool, so that one organization always leaves the other half to the
// rest; perPerson 0 is DefaultPersonConns; negative turns a bound off.
func newConnShare(maxConns, perOrg, perPerson int32) *connShare {
	if perOrg == 0 {
		perOrg = max(maxConns/2, 1)
	}
	if perPerson == 0 {
		perPerson = DefaultPersonConns
	}
	s := &connShare{perOrg: int(max(perOrg, 0)), perPerson: int(max(perPerson, 0)), gates: map[gateKey]*gate{}}
	if s.perOrg == 0 && s.perPerson == 0 {
		return nil
	}
	return s
}

// covered is what a context's open transaction already holds a share of (Tx.held): a connection
// taken by work inside the transaction for the same organization or person — a root client
// statement, a detached transaction — takes no second slot. Taking one could deadlock: every
// slot held by transactions each waiting for a second.
type covered struct{ org, person string }

type coveredKey struct{}

// take waits for the slots of ctx's person and organization until ctx is done. Contexts marked
// viewer.AnyScope take none: their lookups (the API key's) run before a request has a share. The
// caller keeps system work off it: it runs on the System pool.
func (s *connShare) take(ctx context.Context) (lease, error) {
	if s == nil || viewer.IsAnyScope(ctx) {
		return lease{}, nil
	}
	v := viewer.FromContext(ctx)
	if v == nil {
		return lease{}, nil
	}
	org, person := v.OrganizationID, ""
	if v.Person != nil {
		person = v.Person.UserID
	}
	if tx, _ := ctx.Value(coveredKey{}).(*Tx); tx != nil && !tx.done.Load() {
		if tx.held.org == org {
			org = ""
		}
		if tx.held.person == person {
			person = ""
		}
	}
	var l lease
	var err error
	if person != "" && s.perPerson > 0 {
		if l.person, err = s.enter(ctx, gateKey{person: true, id: person}, s.perPerson); err != nil {
			return lease{}, err
		}
	}
	if org != "" && s.perOrg > 0 {
		if l.org, err = s.enter(ctx, gateKey{id: org}, s.perOrg); err != nil {
			s.exit(l.person)
			return lease{}, err
		}
	}
	return l, nil
}

// enter waits for one of the n slots of key until ctx is done.
func (s *connShare) enter(ctx context.Context, key gateKey, n int) (*gate, error) {
	s.mu.Lock()
	g := s.gates[key]
	if g == nil {
		if len(s.gates) >= maxGates {
			for k, idle := range s.gates {
				if idle.users == 0 {
					delete(s.gates, k)
				}
			}
		}
		g = &gate{slots: make(chan struct{}, n)}
		s.gates[key] = g
	}
	g.users++
	s.mu.Unlock()
	select {
	case g.slots <- struct{}{}:
		return g, nil
	default:
	}
	select {
	case g.slots <- struct{}{}:
		return g, nil
	case <-ctx.Done():
		s.leave(g)
		what := "organization"
		if key.person {
			what = "person"
		}
		// Wrapping the context's error keeps a caller's own end (a client gone, its budget spent)
		// readable as such; acquireConnector turns its own timeout into ErrAcquireTimeout. The
		// key is for the logs: which organization or person keeps hitting its share.
		return nil, fmt.Errorf("dbx: the %d database connections of %s %s are all in use: %w", n, what, key.id, ctx.Err())
	}
}

// release gives back the slots of l.
func (s *connShare) release(l lease) {
	s.exit(l.org)
	s.exit(l.person)
}

// exit gives back a slot of g, if g is one.
func (s *connShare) exit(g *gate) {
	if g == nil {
		return
	}
	<-g.slots
	s.leave(g)
}

// leave drops a holder or waiter of g.
func (s *connShare) leave(g *gate) {
	s.mu.Lock()
	g.users--
	s.mu.Unlock()
}

// inUse counts the slots held or waited for.
func (s *connShare) inUse() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, g := range s.gates {
		n += g.users
	}
	return n
}

// sharedConn is a pooled connection that holds slots of a connShare, and gives them back when
// database/sql closes it — which it does as soon as its statement or transaction is done, since it
// keeps no idle connections (Open) — after the connection is back in pgxpool, so that the waiter
// woken by the slot finds it there. Embedding *stdlib.Conn keeps every optional interface of
// database/sql/driver that pgx's connection implements.
type sharedConn struct {
	*stdlib.Conn
	share *connShare
	lease lease
}

// Close returns the connection to the pool, then its slots.
func (c *sharedConn) Close() error {
	err := c.Conn.Close()
	if c.share != nil {
		c.share.release(c.lease)
		c.share = nil
	}
	return err
}

// pgxConn returns the pgx connection under a driver connection of Pool.
func pgxConn(dc any) (*stdlib.Conn, error) {
	switch c := dc.(type) {
	case *stdlib.Conn:
		return c, nil
	case *sharedConn:
		return c.Conn, nil
	}
	return nil, fmt.Errorf("dbx: unexpected driver connection %T", dc)
}
