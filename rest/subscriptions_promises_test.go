package rest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
)

// The promises of docs/subscriptions.md, each tried the way it could be broken.

// liteChangesQuery selects what the changes emitted by the tests carry, and nothing read per event.
const liteChangesQuery = `subscription($eventId: ID!, $after: ID) { eventChanges(eventId: $eventId, after: $after) {
	cursor type eventId status } }`

// subscribeFunc starts a subscription over one protocol; stop ends it from the client's side.
type subscribeFunc func(t *testing.T, srv *httptest.Server, header http.Header, query string, vars map[string]any) (events <-chan liveEvent, stop func())

// protocols are the two transports of subscriptions.
var protocols = map[string]subscribeFunc{
	"sse": sseSubscribeWith,
	"ws": func(t *testing.T, srv *httptest.Server, header http.Header, query string, vars map[string]any) (<-chan liveEvent, func()) {
		c := dialWS(t, srv, header, true)
		return c.subscribe("1", query, vars), func() { _ = c.conn.Close(websocket.StatusNormalClosure, "") }
	},
}

// changeOf is the eventChanges payload of ev, which must carry no error.
func changeOf(t *testing.T, ev liveEvent) map[string]any {
	t.Helper()
	require.Empty(t, ev.Errors)
	require.False(t, ev.Complete, "the subscription completed")
	change, ok := ev.Data["eventChanges"].(map[string]any)
	require.True(t, ok, "no eventChanges in %v", ev.Data)
	return change
}

// nextChangeWhere is the first change satisfying ok within wait, skipping others.
func nextChangeWhere(t *testing.T, events <-chan liveEvent, wait time.Duration, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("no such change within %s", wait)
		}
		if c := changeOf(t, nextEvent(t, events, left)); ok(c) {
			return c
		}
	}
}

// requireEnded waits for the subscription to end (its channel closed, or completed) within wait.
func requireEnded(t *testing.T, events <-chan liveEvent, wait time.Duration) {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-events:
			if !ok || ev.Complete {
				return
			}
		case <-deadline:
			t.Fatalf("the subscription did not end within %s", wait)
		}
	}
}

// requireErrorCode waits for the subscription's first event, an error with code.
func requireErrorCode(t *testing.T, events <-chan liveEvent, code string) {
	t.Helper()
	ev := nextEvent(t, events, 2*time.Second)
	require.Equal(t, code, ev.code(), "%+v", ev)
}

// emitter writes changes as an operation does, in a transaction of their own, as the tables'
// owner (the fixture's side door, bypassing nothing the feed reads).
type emitter struct {
	t    *testing.T
	pool *pgxpool.Pool
	org  string
}

func newEmitter(b *testBundle, org string) *emitter {
	return &emitter{t: b.t, pool: pgtest.OwnerPool(b.t, b.db), org: org}
}

// emit commits an agenda.changed change of eventID whose status is status.
func (e *emitter) emit(eventID, status string) {
	e.t.Helper()
	ctx := context.Background()
	tx, err := e.pool.Begin(ctx)
	require.NoError(e.t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	require.NoError(e.t, jobs.EmitChange(ctx, tx, e.org, eventID, "agenda.changed", map[string]string{"status": status}))
	require.NoError(e.t, tx.Commit(ctx))
}

// statusIs matches a change by its status.
func statusIs(status string) func(map[string]any) bool {
	return func(c map[string]any) bool { return c["status"] == status }
}

// newLiveSession creates a session titled title in eventID over REST, with speaker.
func (b *testBundle) newLiveSession(key, eventID, speaker, title string) {
	b.t.Helper()
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+eventID+"/sessions", key, map[string]any{
		"title": title, "description": nil, "formatId": nil, "speakerIds": []any{speaker}})
}

// newLiveSpeaker creates a speaker with addr in eventID over REST.
func (b *testBundle) newLiveSpeaker(key, eventID, addr string) string {
	b.t.Helper()
	return str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+eventID+"/speakers", key,
		speakerBody(addr)).Obj(), "id")
}

// sessionTitled matches a SESSION_CREATED change of the session titled title.
func sessionTitled(title string) func(map[string]any) bool {
	return func(c map[string]any) bool {
		s, _ := c["session"].(map[string]any)
		return c["type"] == "SESSION_CREATED" && s != nil && s["title"] == title
	}
}

// TestSubscriptionsAcrossInstances: two Podium processes on one database, each with its own feed;
// a change made through REST on the second reaches a subscriber of the first within a second.
func TestSubscriptionsAcrossInstances(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	b1 := newBundle(t, bundleOpts{DB: db})
	b2 := newBundle(t, bundleOpts{DB: db})
	require.Equal(t, b1.acmeOrg, b2.acmeOrg, "both instances serve one organization")
	l1 := b1.liveWith(operation.DefaultFeedLimits)
	b2.liveWith(operation.DefaultFeedLimits)
	ev := str(b1.createEvent(b1.acme, "Two instances"), "id")
	speaker := b2.newLiveSpeaker(b2.acme, ev, "ada@example.test")
	for _, name := range []string{"sse", "ws"} {
		t.Run(name, func(t *testing.T) {
			waitSubscribers(t, l1.feed, 0)
			events, _ := protocols[name](t, l1.srv, bearer(b1.acme), eventChangesQuery, map[string]any{"eventId": ev})
			waitSubscribers(t, l1.feed, 1)
			b2.newLiveSession(b2.acme, ev, speaker, "Across "+name)
			c := nextChangeWhere(t, events, time.Second, sessionTitled("Across "+name))
			require.Equal(t, ev, c["eventId"])
		})
	}
}

// TestSubscriptionsAuthorization: another organization's event answers forbidden; its changes never
// reach a subscriber of one's own; a member signs in and subscribes with the cookie; a person with
// no role in the organization is refused.
func TestSubscriptionsAuthorization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	acmeEv := str(b.createEvent(b.acme, "Acme live"), "id")
	globexEv := str(b.createEvent(b.globex, "Globex live"), "id")
	acmeSpeaker := b.newLiveSpeaker(b.acme, acmeEv, "ada@example.test")
	globexSpeaker := b.newLiveSpeaker(b.globex, globexEv, "grace@example.test")

	t.Run("AnotherOrganizationsEvent", func(t *testing.T) {
		for name, subscribe := range protocols {
			events, _ := subscribe(t, l.srv, bearer(b.acme), eventChangesQuery, map[string]any{"eventId": globexEv})
			ev := nextEvent(t, events, 2*time.Second)
			require.Equal(t, "forbidden", ev.code(), "%s: %+v", name, ev)
		}
	})

	t.Run("OnlyOwnChanges", func(t *testing.T) {
		waitSubscribers(t, l.feed, 0)
		sse, _ := protocols["sse"](t, l.srv, bearer(b.acme), eventChangesQuery, map[string]any{"eventId": acmeEv})
		ws, _ := protocols["ws"](t, l.srv, bearer(b.acme), eventChangesQuery, map[string]any{"eventId": acmeEv})
		// A Globex subscriber of its own event, to show its changes were delivered somewhere.
		globex, _ := protocols["ws"](t, l.srv, bearer(b.globex), eventChangesQuery, map[string]any{"eventId": globexEv})
		waitSubscribers(t, l.feed, 3)
		for i := range 3 {
			b.newLiveSession(b.globex, globexEv, globexSpeaker, "Globex secret "+strconv.Itoa(i))
		}
		nextChangeWhere(t, globex, 2*time.Second, sessionTitled("Globex secret 2"))
		b.newLiveSession(b.acme, acmeEv, acmeSpeaker, "Acme marker")
		for name, events := range map[string]<-chan liveEvent{"sse": sse, "ws": ws} {
			c := changeOf(t, nextEvent(t, events, 2*time.Second))
			require.Equal(t, acmeEv, c["eventId"], name)
			require.True(t, sessionTitled("Acme marker")(c), "%s: the first change is not the marker: %v", name, c)
		}
	})

	t.Run("MemberWithCookie", func(t *testing.T) {
		b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
		cookie := b.signIn("member@example.test")
		for name, subscribe := range protocols {
			waitSubscribers(t, l.feed, 0)
			events, stop := subscribe(t, l.srv, withCookie(cookie), eventChangesQuery, map[string]any{"eventId": acmeEv})
			waitSubscribers(t, l.feed, 1)
			b.newLiveSession(b.acme, acmeEv, acmeSpeaker, "For the member "+name)
			nextChangeWhere(t, events, 2*time.Second, sessionTitled("For the member "+name))
			stop()
		}
	})

	t.Run("NoOrganizationRole", func(t *testing.T) {
		cookie := b.signIn("ada@example.test") // a speaker of the event, nothing more
		for name, subscribe := range protocols {
			events, _ := subscribe(t, l.srv, withCookie(cookie), eventChangesQuery, map[string]any{"eventId": acmeEv})
			ev := nextEvent(t, events, 2*time.Second)
			require.Equal(t, "forbidden", ev.code(), "%s: %+v", name, ev)
		}
	})
}

// TestSubscriptionsResume: a subscriber that reconnects with the cursor of the last change it saw
// receives what it missed; one whose changes are gone is told RESYNC_REQUIRED, then gets live
// changes; a cursor that is not one is invalid_input.
func TestSubscriptionsResume(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	ev := str(b.createEvent(b.acme, "Resume"), "id")
	e := newEmitter(b, b.acmeOrg)
	vars := func(after string) map[string]any {
		v := map[string]any{"eventId": ev}
		if after != "" {
			v["after"] = after
		}
		return v
	}
	for _, name := range []string{"sse", "ws"} {
		subscribe := protocols[name]
		t.Run(name, func(t *testing.T) {
			waitSubscribers(t, l.feed, 0)
			events, stop := subscribe(t, l.srv, bearer(b.acme), liteChangesQuery, vars(""))
			waitSubscribers(t, l.feed, 1)
			e.emit(ev, name+" seen")
			cursor := nextChangeWhere(t, events, 2*time.Second, statusIs(name+" seen"))["cursor"].(string)
			stop()
			waitSubscribers(t, l.feed, 0)
			for i := range 3 {
				e.emit(ev, name+" missed "+strconv.Itoa(i))
			}

			events, stop = subscribe(t, l.srv, bearer(b.acme), liteChangesQuery, vars(cursor))
			for i := range 3 {
				nextChangeWhere(t, events, 2*time.Second, statusIs(name+" missed "+strconv.Itoa(i)))
			}
			waitSubscribers(t, l.feed, 1)
			e.emit(ev, name+" live")
			nextChangeWhere(t, events, 2*time.Second, statusIs(name+" live"))
			stop()
			waitSubscribers(t, l.feed, 0)

			// Pruned: the changes after the cursor are gone, later ones are kept.
			n, err := strconv.ParseInt(cursor, 10, 64)
			require.NoError(t, err)
			_, err = b.db.System.Exec(b.sys(), `DELETE FROM event_changes WHERE id <= $1`, n+1)
			require.NoError(t, err)
			events, stop = subscribe(t, l.srv, bearer(b.acme), liteChangesQuery, vars(cursor))
			require.Equal(t, "RESYNC_REQUIRED", changeOf(t, nextEvent(t, events, 2*time.Second))["type"])
			waitSubscribers(t, l.feed, 1)
			e.emit(ev, name+" after resync")
			nextChangeWhere(t, events, 2*time.Second, statusIs(name+" after resync"))
			stop()
			waitSubscribers(t, l.feed, 0)

			// Pruned, all of them: nothing is kept at all.
			_, err = b.db.System.Exec(b.sys(), `DELETE FROM event_changes`)
			require.NoError(t, err)
			events, _ = subscribe(t, l.srv, bearer(b.acme), liteChangesQuery, vars(cursor))
			require.Equal(t, "RESYNC_REQUIRED", changeOf(t, nextEvent(t, events, 2*time.Second))["type"])

			events, _ = subscribe(t, l.srv, bearer(b.acme), liteChangesQuery, vars("x"))
			requireErrorCode(t, events, "invalid_input")
		})
	}
}

// smallBuffers gives each accepted connection small socket buffers, so that a client that does
// not read blocks the server's writes after a few changes rather than a few megabytes.
func smallBuffers(l net.Listener) net.Listener { return smallBufferListener{l} }

type smallBufferListener struct{ net.Listener }

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
		_ = tc.SetReadBuffer(4096)
	}
	return c, err
}

// TestSubscriptionsSlowConsumerDropped: a WebSocket client that subscribes and never reads is
// dropped once Buffer changes wait for it, not buffered; the feed carries on, and a subscriber
// that reads receives every change.
func TestSubscriptionsSlowConsumerDropped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	limits := operation.DefaultFeedLimits
	limits.Buffer = 4
	l := b.liveWith(limits, smallBuffers)
	ev := str(b.createEvent(b.acme, "Slow"), "id")
	e := newEmitter(b, b.acmeOrg)
	slow := dialWS(t, l.srv, bearer(b.acme), false)
	slow.subscribe("slow", liteChangesQuery, map[string]any{"eventId": ev})
	normal := dialWS(t, l.srv, bearer(b.acme), true).subscribe("1", liteChangesQuery, map[string]any{"eventId": ev})
	waitSubscribers(t, l.feed, 2)
	noise := make([]byte, 1500)
	for i := range 200 {
		_, _ = rand.Read(noise)
		status := strconv.Itoa(i) + " " + hex.EncodeToString(noise)
		e.emit(ev, status)
		nextChangeWhere(t, normal, 2*time.Second, statusIs(status))
	}
	waitSubscribers(t, l.feed, 1)
	// The server still answers, and the reading subscriber is still there.
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+ev, b.acme, nil)
	e.emit(ev, "after the drop")
	nextChangeWhere(t, normal, 2*time.Second, statusIs("after the drop"))
}

// TestSubscriptionsLimits: a connection over PerConnection and a caller over PerCaller are told
// rate_limited; places come back when subscriptions end.
func TestSubscriptionsLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.FeedLimits{PerConnection: 2, PerCaller: 3, PerOrganization: 100, Buffer: 16})
	ev := str(b.createEvent(b.acme, "Limits"), "id")
	vars := map[string]any{"eventId": ev}

	c := dialWS(t, l.srv, bearer(b.acme), true)
	c.subscribe("1", liteChangesQuery, vars)
	c.subscribe("2", liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 2)
	requireErrorCode(t, c.subscribe("3", liteChangesQuery, vars), "rate_limited")

	_, stop := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 3)
	over, _ := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	requireErrorCode(t, over, "rate_limited")
	// Another key of the organization is another caller.
	other, _ := b.newKey("Acme")
	_, stopOther := sseSubscribeWith(t, l.srv, bearer(other), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 4)

	c.complete("1")
	c.complete("2")
	stop()
	stopOther()
	waitSubscribers(t, l.feed, 0)

	// Subscribing and unsubscribing gives every place back.
	for i := range 10 {
		id := "loop" + strconv.Itoa(i)
		events := c.subscribe(id, liteChangesQuery, vars)
		waitSubscribers(t, l.feed, 1)
		c.complete(id)
		waitSubscribers(t, l.feed, 0)
		select {
		case ev, ok := <-events:
			require.False(t, ok && len(ev.Errors) > 0, "refused: %+v", ev)
		default:
		}
	}
	for range 5 {
		_, stop := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
		waitSubscribers(t, l.feed, 1)
		stop()
		waitSubscribers(t, l.feed, 0)
	}
	// The caller's full allowance is there again.
	a := c.subscribe("a", liteChangesQuery, vars)
	c.subscribe("b", liteChangesQuery, vars)
	sse, _ := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 3)
	newEmitter(b, b.acmeOrg).emit(ev, "all admitted")
	nextChangeWhere(t, a, 2*time.Second, statusIs("all admitted"))
	nextChangeWhere(t, sse, 2*time.Second, statusIs("all admitted"))
}

// TestSubscriptionsShutdown: at shutdown (the feed closed, then the graph server's subscriptions)
// a WebSocket client is closed with 1012 and an event stream completes.
func TestSubscriptionsShutdown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	ev := str(b.createEvent(b.acme, "Shutdown"), "id")
	vars := map[string]any{"eventId": ev}
	c := dialWS(t, l.srv, bearer(b.acme), true)
	c.subscribe("1", liteChangesQuery, vars)
	sse, _ := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 2)

	l.feed.Close()
	l.gql.CloseSubscriptions()

	select {
	case <-c.gone:
	case <-time.After(3 * time.Second):
		t.Fatal("the WebSocket is still open")
	}
	require.Equal(t, websocket.StatusCode(graph.CloseServiceRestart), c.closeStatus)
	select {
	case ev, ok := <-sse:
		require.True(t, ok, "the event stream ended without event: complete")
		require.True(t, ev.Complete, "%+v", ev)
	case <-time.After(3 * time.Second):
		t.Fatal("the event stream is still open")
	}

	// Afterwards: a new WebSocket is closed with 1012 at once, a new event stream is told
	// unavailable.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(l.srv.URL, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: bearer(b.acme)})
	require.NoError(t, err)
	if resp.Body != nil {
		_ = resp.Body.Close()
	}
	defer func() { _ = conn.CloseNow() }()
	_, _, err = conn.Read(ctx)
	require.Equal(t, websocket.StatusCode(graph.CloseServiceRestart), websocket.CloseStatus(err), "%v", err)
	late, _ := sseSubscribeWith(t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	requireErrorCode(t, late, "unavailable")
}

// TestSubscriptionsRevokedKey: a subscription whose API key is revoked ends within a few Recheck
// periods; one of a key still valid carries on.
func TestSubscriptionsRevokedKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	limits := operation.DefaultFeedLimits
	limits.Recheck = 200 * time.Millisecond
	l := b.liveWith(limits)
	ev := str(b.createEvent(b.acme, "Revoked"), "id")
	vars := map[string]any{"eventId": ev}
	kept, _ := protocols["ws"](t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 1)
	for _, name := range []string{"sse", "ws"} {
		key, _ := b.newKey("Acme")
		events, _ := protocols[name](t, l.srv, bearer(key), liteChangesQuery, vars)
		waitSubscribers(t, l.feed, 2)
		_, err := access.RevokeKey(b.sys(), b.db.Ent, key)
		require.NoError(t, err)
		requireEnded(t, events, 5*limits.Recheck)
		waitSubscribers(t, l.feed, 1)
	}
	newEmitter(b, b.acmeOrg).emit(ev, "still here")
	nextChangeWhere(t, kept, 2*time.Second, statusIs("still here"))
}

// TestSubscriptionsListenerReconnects: the feed's LISTEN connection is killed and a change committed
// while it is down; the subscribers still receive it once the feed listens again.
func TestSubscriptionsListenerReconnects(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	ev := str(b.createEvent(b.acme, "Reconnect"), "id")
	vars := map[string]any{"eventId": ev}
	e := newEmitter(b, b.acmeOrg)
	sse, _ := protocols["sse"](t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	ws, _ := protocols["ws"](t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 2)

	ctx := context.Background()
	listeners := func() int { return listenersOf(t, e) }
	require.Equal(t, 1, listeners())
	var killed int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`).Scan(&killed))
	require.Equal(t, 1, killed)
	require.Eventually(t, func() bool { return listeners() == 0 }, 2*time.Second, 5*time.Millisecond)
	e.emit(ev, "while deaf")
	for name, events := range map[string]<-chan liveEvent{"sse": sse, "ws": ws} {
		nextChangeWhere(t, events, 4*time.Second, statusIs("while deaf"))
		_ = name
	}
	require.Equal(t, 1, listeners(), "the feed listens again")
	e.emit(ev, "heard again")
	for _, events := range []<-chan liveEvent{sse, ws} {
		nextChangeWhere(t, events, 2*time.Second, statusIs("heard again"))
	}
}

// TestSubscriptionsListenerReadsBackOnlyItsOutage: after a second lost connection the feed reads
// back the changes around that outage, not everything since the first one (which, a day later,
// would be a day of changes handed to every subscriber at once).
func TestSubscriptionsListenerReadsBackOnlyItsOutage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	ev := str(b.createEvent(b.acme, "Outages"), "id")
	vars := map[string]any{"eventId": ev}
	e := newEmitter(b, b.acmeOrg)
	ctx := context.Background()
	listeners := func() int { return listenersOf(t, e) }
	kill := func() time.Time {
		at := time.Now()
		_, err := e.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN%'`)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return listeners() == 0 }, 2*time.Second, 5*time.Millisecond)
		return at
	}
	first := kill()
	require.Eventually(t, func() bool { return listeners() == 1 }, 4*time.Second, 10*time.Millisecond)
	// A change the feed never heard of (written without a notification), dated as if long after
	// the first outage and long before the second (more than the replay window before it).
	_, err := e.pool.Exec(ctx, `INSERT INTO event_changes (organization_id, event_id, type, data, created_at)
		VALUES ($1, $2, 'agenda.changed', '{"status": "between the outages"}', $3)`,
		b.acmeOrg, ev, first.Add(300*time.Millisecond-time.Minute).UTC())
	require.NoError(t, err)

	events, _ := protocols["ws"](t, l.srv, bearer(b.acme), liteChangesQuery, vars)
	waitSubscribers(t, l.feed, 1)
	kill()
	e.emit(ev, "during the second outage")
	c := changeOf(t, nextEvent(t, events, 4*time.Second))
	require.Equal(t, "during the second outage", c["status"], "the second outage read back from the first")
}

// TestSubscriptionsResumeKeepsTypes: a subscription limited to some types that resumes receives,
// of the changes it missed, only those types.
func TestSubscriptionsResumeKeepsTypes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.DefaultFeedLimits)
	ev := str(b.createEvent(b.acme, "Types"), "id")
	e := newEmitter(b, b.acmeOrg)
	const query = `subscription($eventId: ID!, $after: ID) { eventChanges(eventId: $eventId, after: $after,
		types: [AGENDA_CHANGED]) { cursor type status } }`
	emitOther := func(status string) {
		ctx := context.Background()
		tx, err := e.pool.Begin(ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(ctx) }()
		require.NoError(t, jobs.EmitChange(ctx, tx, b.acmeOrg, ev, "email.status_changed", map[string]string{"status": status}))
		require.NoError(t, tx.Commit(ctx))
	}
	for _, name := range []string{"sse", "ws"} {
		subscribe := protocols[name]
		t.Run(name, func(t *testing.T) {
			waitSubscribers(t, l.feed, 0)
			events, stop := subscribe(t, l.srv, bearer(b.acme), query, map[string]any{"eventId": ev})
			waitSubscribers(t, l.feed, 1)
			emitOther(name + " other live")
			e.emit(ev, name+" seen")
			c := changeOf(t, nextEvent(t, events, 2*time.Second))
			require.Equal(t, name+" seen", c["status"], "a live change of another type arrived")
			stop()
			waitSubscribers(t, l.feed, 0)
			emitOther(name + " other missed")
			e.emit(ev, name+" missed")
			events, _ = subscribe(t, l.srv, bearer(b.acme), query, map[string]any{"eventId": ev, "after": c["cursor"]})
			for {
				c := changeOf(t, nextEvent(t, events, 2*time.Second))
				require.Equal(t, "AGENDA_CHANGED", c["type"], "a missed change of another type arrived: %v", c)
				if c["status"] == name+" missed" {
					break
				}
			}
		})
	}
}

// TestSubscriptionsEndWithTheSession: a person's subscriptions end within a few Recheck periods
// of signing out, or of losing their place in the organization.
func TestSubscriptionsEndWithTheSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	limits := operation.DefaultFeedLimits
	limits.Recheck = 200 * time.Millisecond
	l := b.liveWith(limits)
	ev := str(b.createEvent(b.acme, "Sessions"), "id")
	vars := map[string]any{"eventId": ev}

	t.Run("SignOut", func(t *testing.T) {
		b.addMember(b.acmeOrg, "leaving@example.test", organizationmember.RoleMember)
		cookie := b.signIn("leaving@example.test")
		sse, _ := protocols["sse"](t, l.srv, withCookie(cookie), liteChangesQuery, vars)
		ws, _ := protocols["ws"](t, l.srv, withCookie(cookie), liteChangesQuery, vars)
		waitSubscribers(t, l.feed, 2)
		out := httptest.NewRequest(http.MethodPost, "/auth/signout", nil)
		out.Header.Set("Sec-Fetch-Site", "same-origin")
		out.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		require.Equal(t, http.StatusSeeOther, b.sendRaw(out).Code)
		requireEnded(t, sse, 5*limits.Recheck)
		requireEnded(t, ws, 5*limits.Recheck)
		waitSubscribers(t, l.feed, 0)
	})

	t.Run("RemovedFromTheOrganization", func(t *testing.T) {
		user := b.addMember(b.acmeOrg, "removed@example.test", organizationmember.RoleMember)
		cookie := b.signIn("removed@example.test")
		sse, _ := protocols["sse"](t, l.srv, withCookie(cookie), liteChangesQuery, vars)
		ws, _ := protocols["ws"](t, l.srv, withCookie(cookie), liteChangesQuery, vars)
		waitSubscribers(t, l.feed, 2)
		_, err := b.db.Ent.OrganizationMember.Delete().Where(organizationmember.UserID(user)).Exec(b.sys())
		require.NoError(t, err)
		requireEnded(t, sse, 5*limits.Recheck)
		requireEnded(t, ws, 5*limits.Recheck)
		waitSubscribers(t, l.feed, 0)
	})
}

// TestSubscriptionsReconnectKeepsUpToDateSubscribers: a subscriber that has every change is not
// dropped as slow when the feed reconnects and reads back the last minute's changes, however
// many there were.
func TestSubscriptionsReconnectKeepsUpToDateSubscribers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	limits := operation.DefaultFeedLimits
	limits.Buffer = 4
	l := b.liveWith(limits)
	ev := str(b.createEvent(b.acme, "Busy minute"), "id")
	e := newEmitter(b, b.acmeOrg)
	events, _ := protocols["ws"](t, l.srv, bearer(b.acme), liteChangesQuery, map[string]any{"eventId": ev})
	waitSubscribers(t, l.feed, 1)
	for i := range 50 {
		e.emit(ev, "busy "+strconv.Itoa(i))
		nextChangeWhere(t, events, 2*time.Second, statusIs("busy "+strconv.Itoa(i)))
	}
	ctx := context.Background()
	listeners := func() int { return listenersOf(t, e) }
	_, err := e.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return listeners() == 0 }, 2*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return listeners() == 1 }, 4*time.Second, 10*time.Millisecond)
	e.emit(ev, "after the reconnect")
	nextChangeWhere(t, events, 2*time.Second, statusIs("after the reconnect"))
	require.Equal(t, 1, l.feed.Subscribers())
}

// TestSubscriptionsOrganizationLimit: an organization over PerOrganization is told rate_limited,
// whichever of its keys asks; another organization is not.
func TestSubscriptionsOrganizationLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := b.liveWith(operation.FeedLimits{PerConnection: 10, PerCaller: 10, PerOrganization: 2, Buffer: 16})
	acmeEv := str(b.createEvent(b.acme, "Acme limit"), "id")
	globexEv := str(b.createEvent(b.globex, "Globex limit"), "id")
	c := dialWS(t, l.srv, bearer(b.acme), true)
	c.subscribe("1", liteChangesQuery, map[string]any{"eventId": acmeEv})
	c.subscribe("2", liteChangesQuery, map[string]any{"eventId": acmeEv})
	waitSubscribers(t, l.feed, 2)
	other, _ := b.newKey("Acme")
	over, _ := sseSubscribeWith(t, l.srv, bearer(other), liteChangesQuery, map[string]any{"eventId": acmeEv})
	requireErrorCode(t, over, "rate_limited")
	globex, _ := sseSubscribeWith(t, l.srv, bearer(b.globex), liteChangesQuery, map[string]any{"eventId": globexEv})
	waitSubscribers(t, l.feed, 3)
	c.complete("1")
	waitSubscribers(t, l.feed, 2)
	admitted := dialWS(t, l.srv, bearer(other), true).subscribe("1", liteChangesQuery, map[string]any{"eventId": acmeEv})
	waitSubscribers(t, l.feed, 3)
	e := newEmitter(b, b.acmeOrg)
	e.emit(acmeEv, "admitted")
	nextChangeWhere(t, admitted, 2*time.Second, statusIs("admitted"))
	newEmitter(b, b.globexOrg).emit(globexEv, "globex")
	nextChangeWhere(t, globex, 2*time.Second, statusIs("globex"))
}

// listenersOf counts the LISTEN connections on the test's database: its feeds'.
func listenersOf(t *testing.T, e *emitter) int {
	t.Helper()
	var n int
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`).Scan(&n))
	return n
}
