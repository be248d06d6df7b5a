package operation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/jobs"
)

// Feed delivers committed event changes to this process's subscribers (docs/subscriptions.md).
// Every Podium process runs one: it listens on jobs.ChangesChannel over a connection of its own,
// so a change committed by any process reaches the subscribers of all of them, with no broker but
// PostgreSQL. A subscriber that falls Limits.Buffer changes behind is dropped, never buffered
// without bound; it resumes from its last cursor.
type Feed struct {
	db     *dbx.DB
	log    *slog.Logger
	limits FeedLimits

	mu        sync.Mutex
	events    map[string]map[*subscriber]struct{} // by event id
	reviewers map[string]map[*subscriber]struct{} // by reviewer (event member id)
	all       map[*subscriber]struct{}
	holders   map[string]int // subscriptions held, by caller, organization and connection
	// dispatched are the last changes offered, which a read back after a lost connection skips.
	dispatched *recent
	closed     bool
	done       chan struct{} // closed by Close
	listening  chan struct{} // closed once the first LISTEN holds
	listenOne  sync.Once
	dropped    atomic.Int64 // subscriptions ended for falling behind
}

// FeedLimits bound the subscriptions of one process.
type FeedLimits struct {
	// PerConnection caps the subscriptions of one WebSocket connection.
	PerConnection int
	// PerCaller caps the subscriptions of one API key or person.
	PerCaller int
	// PerOrganization caps the subscriptions of one organization's keys and members.
	PerOrganization int
	// Buffer is how many changes may wait for a subscriber that does not keep up; one more drops
	// it.
	Buffer int
	// Recheck is how often a subscription checks that its caller may still read what it watches
	// (a revoked key, a removed member).
	Recheck time.Duration
}

// DefaultFeedLimits leave an organizer's console a subscription per open view and an
// organization's team hundreds of them, while one caller cannot hold a process's memory.
var DefaultFeedLimits = FeedLimits{PerConnection: 25, PerCaller: 200, PerOrganization: 2000, Buffer: 256,
	Recheck: 30 * time.Second}

// ErrFeedClosed ends subscriptions when their process shuts down: the client reconnects, to
// another process, and resumes.
var ErrFeedClosed = errors.New("operation: the change feed is closed")

// errSlowSubscriber ends a subscription whose client does not read its changes.
var errSlowSubscriber = errors.New("operation: subscriber too slow")

// NewFeed returns the feed of db; Run starts it.
func NewFeed(db *dbx.DB, log *slog.Logger, limits FeedLimits) *Feed {
	if log == nil {
		log = slog.Default()
	}
	return &Feed{db: db, log: log, limits: limits,
		events: map[string]map[*subscriber]struct{}{}, reviewers: map[string]map[*subscriber]struct{}{},
		all: map[*subscriber]struct{}{}, holders: map[string]int{}, dispatched: newRecent(dispatchedKept), done: make(chan struct{}), listening: make(chan struct{})}
}

// subscriber is one subscription's place in the feed.
type subscriber struct {
	changes chan *jobs.Change
	// ended is closed when the feed drops the subscriber (too slow, or the feed closed); err says
	// why.
	ended   chan struct{}
	err     error
	eventID string
	// members are the event member ids of a myReviewChanges subscription's reviewer.
	members []string
	types   map[string]bool
	holders []string
	// added is set while s is in the feed.
	added bool
}

// Listening is closed once the feed listens: changes committed after it reach subscribers.
func (f *Feed) Listening() <-chan struct{} { return f.listening }

// Run listens until ctx ends or Close is called, reconnecting after a lost connection. Changes
// committed while it was not listening are read back from the table, so a subscriber misses none.
func (f *Feed) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-f.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var lost time.Time
	for ctx.Err() == nil {
		caughtUp, err := f.listen(ctx, lost)
		if ctx.Err() != nil {
			return
		}
		// The next connection reads back from this failure, unless this one failed before it
		// had read back an earlier one's.
		if caughtUp || lost.IsZero() {
			lost = time.Now()
		}
		f.log.Warn("change feed: listening failed; retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// listen holds one LISTEN connection until it fails. lost, when set, is when an earlier
// connection failed: the changes since then are read back once this one listens. caughtUp
// reports that they were.
func (f *Feed) listen(ctx context.Context, lost time.Time) (caughtUp bool, err error) {
	cfg := f.db.Pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, "LISTEN "+jobs.ChangesChannel); err != nil {
		return false, err
	}
	f.listenOne.Do(func() { close(f.listening) })
	if !lost.IsZero() {
		if err := f.readBack(ctx, lost.Add(-replayWindow)); err != nil {
			return false, err
		}
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		var c jobs.Change
		if err := json.Unmarshal([]byte(n.Payload), &c); err != nil {
			f.log.Error("change feed: unreadable notification", "err", err)
			continue
		}
		f.dispatch(c)
	}
}

// replayWindow reaches back before a resume point for changes that were written before it and
// committed after it: a change's id is taken when it is written, its notification sent when its
// transaction commits, and no operation's transaction lasts longer than this.
const replayWindow = time.Minute

// readBack delivers the changes committed since from (after a lost connection); subscribers skip
// those they have.
func (f *Feed) readBack(ctx context.Context, from time.Time) error {
	ctx = viewer.System(ctx, "change feed: changes committed while not listening")
	rows, err := f.db.PoolFor(ctx).Query(ctx, `SELECT id, organization_id, event_id, type, data, created_at
		FROM event_changes WHERE created_at >= $1 ORDER BY id`, from)
	if err != nil {
		return err
	}
	changes, err := pgx.CollectRows(rows, scanChange)
	if err != nil {
		return err
	}
	for _, c := range changes {
		f.dispatch(c)
	}
	return nil
}

// scanChange reads a row of event_changes.
func scanChange(row pgx.CollectableRow) (jobs.Change, error) {
	var c jobs.Change
	err := row.Scan(&c.ID, &c.OrganizationID, &c.EventID, &c.Type, &c.Data, &c.At)
	return c, err
}

// dispatchedKept is how many of the last changes offered the feed remembers: a read back after a
// lost connection offers again only those it does not, so that the subscribers that have them
// are not dropped as slow for a busy minute offered all at once.
const dispatchedKept = 16384

// dispatch offers c to the subscribers of its event and, for a review change, of its reviewer,
// unless it was offered already.
func (f *Feed) dispatch(c jobs.Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dispatched.add(c.ID) {
		return
	}
	shared := &c // every subscriber reads the same change
	for s := range f.events[c.EventID] {
		f.offer(s, shared)
	}
	if reviewer := c.Data["reviewerId"]; reviewer != "" && strings.HasPrefix(c.Type, "review.") {
		for s := range f.reviewers[reviewer] {
			f.offer(s, shared)
		}
	}
}

// offer hands c to s, or drops s when it is Buffer changes behind. f.mu is held.
func (f *Feed) offer(s *subscriber, c *jobs.Change) {
	if s.types != nil && !s.types[c.Type] {
		return
	}
	select {
	case s.changes <- c:
	default:
		f.end(s, errSlowSubscriber)
	}
}

// end drops s with err. f.mu is held.
func (f *Feed) end(s *subscriber, err error) {
	if s.err != nil {
		return
	}
	s.err = err
	close(s.ended)
	if errors.Is(err, errSlowSubscriber) {
		f.dropped.Add(1)
	}
	f.remove(s)
}

// keys are the feed's map and the keys s is registered under.
func (f *Feed) keys(s *subscriber) (map[string]map[*subscriber]struct{}, []string) {
	if s.members != nil {
		return f.reviewers, s.members
	}
	return f.events, []string{s.eventID}
}

// remove takes s out of the feed's maps and gives back its places. f.mu is held.
func (f *Feed) remove(s *subscriber) {
	if !s.added {
		return
	}
	s.added = false
	delete(f.all, s)
	byKey, keys := f.keys(s)
	for _, key := range keys {
		if set := byKey[key]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(byKey, key)
			}
		}
	}
	for _, h := range s.holders {
		if f.holders[h]--; f.holders[h] <= 0 {
			delete(f.holders, h)
		}
	}
}

// Close ends every subscription (ErrFeedClosed) and stops Run: the process is shutting down.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	close(f.done)
	for s := range f.all {
		f.end(s, ErrFeedClosed)
	}
}

// Dropped is how many subscriptions the process ended for falling behind.
func (f *Feed) Dropped() int64 { return f.dropped.Load() }

// Subscribers is how many subscriptions the process holds.
func (f *Feed) Subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.all)
}

// connectionKey is the context key of a WebSocket connection's identity (WithConnection).
type connectionKey struct{}

// WithConnection marks ctx as one connection's, whose subscriptions FeedLimits.PerConnection
// caps; id is unique to the connection.
func WithConnection(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, connectionKey{}, id)
}

// ConnectionOf is the connection identity of ctx (WithConnection), or "".
func ConnectionOf(ctx context.Context) string {
	id, _ := ctx.Value(connectionKey{}).(string)
	return id
}

// ConnectionSubscriptions is how many subscriptions the connection id holds.
func (f *Feed) ConnectionSubscriptions(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holders["conn:"+id]
}

// add registers s for the caller of ctx within the limits.
func (f *Feed) add(ctx context.Context, s *subscriber) error {
	v := viewer.FromContext(ctx)
	if v == nil {
		return apperr.Forbidden("Subscribing needs an API key or a signed-in person")
	}
	caller := "key:" + v.APIKeyID
	if v.Person != nil {
		caller = "user:" + v.Person.UserID
	}
	type limit struct {
		holder string
		max    int
		what   string
	}
	limits := []limit{{caller, f.limits.PerCaller, "caller"}}
	if v.OrganizationID != "" {
		limits = append(limits, limit{"org:" + v.OrganizationID, f.limits.PerOrganization, "organization"})
	}
	if conn, _ := ctx.Value(connectionKey{}).(string); conn != "" {
		limits = append(limits, limit{"conn:" + conn, f.limits.PerConnection, "connection"})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return apperr.Unavailable()
	}
	for _, l := range limits {
		if l.max > 0 && f.holders[l.holder] >= l.max {
			return apperr.New(429, apperr.CodeRateLimited,
				fmt.Sprintf("A %s holds at most %d subscriptions at once on a server; end one first", l.what, l.max))
		}
	}
	for _, l := range limits {
		f.holders[l.holder]++
		s.holders = append(s.holders, l.holder)
	}
	s.added = true
	f.all[s] = struct{}{}
	byKey, keys := f.keys(s)
	for _, key := range keys {
		if byKey[key] == nil {
			byKey[key] = map[*subscriber]struct{}{}
		}
		byKey[key][s] = struct{}{}
	}
	return nil
}

// drop takes s out of the feed: its subscription ended.
func (f *Feed) drop(s *subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(s)
}
