package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/rest"
)

// live starts a change feed for the bundle's operations and serves its router over TCP, as
// subscriptions need; both end with the test.
func (b *testBundle) live() *httptest.Server {
	b.t.Helper()
	return b.liveWith(operation.DefaultFeedLimits).srv
}

// liveServer is a bundle served over TCP with a change feed: the pieces a test of subscriptions
// reaches.
type liveServer struct {
	srv  *httptest.Server
	feed *operation.Feed
	// gql is the /graphql server srv serves, for CloseSubscriptions.
	gql *graph.Server
}

// liveWith is live with the feed's limits given, serving a router of its own whose GraphQL server
// the test keeps. wrap, when given, wraps the listener (see smallBuffers).
func (b *testBundle) liveWith(limits operation.FeedLimits, wrap ...func(net.Listener) net.Listener) *liveServer {
	b.t.Helper()
	feed := operation.NewFeed(b.db, b.quietLog(), limits)
	b.res.Ops.Feed = feed
	ctx, cancel := context.WithCancel(context.Background())
	go feed.Run(ctx)
	b.t.Cleanup(func() { feed.Close(); cancel() })
	select {
	case <-feed.Listening():
	case <-time.After(5 * time.Second):
		b.t.Fatal("the change feed does not listen")
	}
	log := b.quietLog()
	gql := graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: log})
	h := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: log, Metrics: b.metrics, GraphQL: gql})
	srv := httptest.NewUnstartedServer(h)
	for _, w := range wrap {
		srv.Listener = w(srv.Listener)
	}
	srv.Start()
	b.t.Cleanup(srv.Close)
	return &liveServer{srv: srv, feed: feed, gql: gql}
}

// waitSubscribers waits until the feed holds n subscriptions.
func waitSubscribers(t *testing.T, feed *operation.Feed, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for feed.Subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the feed holds %d subscriptions, not %d", feed.Subscribers(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// bearer is the header of an API key.
func bearer(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

// withCookie is the header of a session cookie.
func withCookie(cookie string) http.Header {
	return http.Header{"Cookie": {(&http.Cookie{Name: sessionCookie, Value: cookie}).String()}}
}

// liveEvent is one event of a subscription: its data, or its errors. Complete marks the end an
// event stream announces (event: complete).
type liveEvent struct {
	Data     map[string]any   `json:"data"`
	Errors   []map[string]any `json:"errors"`
	Complete bool             `json:"-"`
}

// code is the extensions.code of the event's first error.
func (e liveEvent) code() string {
	if len(e.Errors) == 0 {
		return ""
	}
	ext, _ := e.Errors[0]["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// sseSubscribe starts a subscription over server-sent events (graphql-sse, distinct connections)
// and returns its events as they come.
func sseSubscribe(t *testing.T, srv *httptest.Server, key, query string, vars map[string]any) <-chan liveEvent {
	t.Helper()
	events, _ := sseSubscribeWith(t, srv, bearer(key), query, vars)
	return events
}

// sseSubscribeWith is sseSubscribe with the request's headers given; cancel ends the stream.
func sseSubscribeWith(t *testing.T, srv *httptest.Server, header http.Header, query string, vars map[string]any) (events <-chan liveEvent, cancel func()) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // the reading goroutine closes it
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	out := make(chan liveEvent, 1000)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev liveEvent
				if json.Unmarshal([]byte(data), &ev) == nil && (ev.Data != nil || ev.Errors != nil) {
					out <- ev
				}
			}
			if line == "event: complete" {
				out <- liveEvent{Complete: true}
				return
			}
		}
	}()
	return out, cancel
}

// wsSubscribe starts a subscription over a WebSocket (graphql-transport-ws) and returns its
// events as they come.
func wsSubscribe(t *testing.T, srv *httptest.Server, key, query string, vars map[string]any) <-chan liveEvent {
	t.Helper()
	return dialWS(t, srv, bearer(key), true).subscribe("1", query, vars)
}

// wsClient is a graphql-transport-ws connection, its subscriptions told apart by id.
type wsClient struct {
	t    *testing.T
	ctx  context.Context
	conn *websocket.Conn
	mu   sync.Mutex
	subs map[string]chan liveEvent
	// gone is closed when the connection ends; closeStatus is the close code the server sent.
	gone        chan struct{}
	closeStatus websocket.StatusCode
}

// dialWS opens a connection and has it acknowledged. With read, a goroutine reads its messages
// (answering pings); without, nothing reads what the server sends.
func dialWS(t *testing.T, srv *httptest.Server, header http.Header, read bool) *wsClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
		HTTPHeader:   header,
	})
	require.NoError(t, err)
	if resp.Body != nil {
		_ = resp.Body.Close()
	}
	conn.SetReadLimit(16 << 20)
	t.Cleanup(func() { _ = conn.CloseNow() })
	require.NoError(t, wsjson.Write(ctx, conn, map[string]any{"type": "connection_init"}))
	var ack map[string]any
	require.NoError(t, wsjson.Read(ctx, conn, &ack))
	require.Equal(t, "connection_ack", ack["type"])
	c := &wsClient{t: t, ctx: ctx, conn: conn, subs: map[string]chan liveEvent{}, gone: make(chan struct{}), closeStatus: -1}
	if read {
		go c.read()
	}
	return c
}

// read hands each message to its subscription until the connection ends.
func (c *wsClient) read() {
	defer func() {
		c.mu.Lock()
		for id, ch := range c.subs {
			close(ch)
			delete(c.subs, id)
		}
		c.mu.Unlock()
		close(c.gone)
	}()
	for {
		var msg struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := wsjson.Read(c.ctx, c.conn, &msg); err != nil {
			c.closeStatus = websocket.CloseStatus(err)
			return
		}
		c.mu.Lock()
		ch := c.subs[msg.ID]
		switch msg.Type {
		case "ping":
			_ = wsjson.Write(c.ctx, c.conn, map[string]any{"type": "pong"})
		case "next":
			var ev liveEvent
			if ch != nil && json.Unmarshal(msg.Payload, &ev) == nil {
				ch <- ev
			}
		case "error":
			var errs []map[string]any
			_ = json.Unmarshal(msg.Payload, &errs)
			if ch != nil {
				ch <- liveEvent{Errors: errs}
				close(ch)
				delete(c.subs, msg.ID)
			}
		case "complete":
			if ch != nil {
				close(ch)
				delete(c.subs, msg.ID)
			}
		}
		c.mu.Unlock()
	}
}

// subscribe starts the subscription id and returns its events as they come; the channel closes
// when the subscription ends.
func (c *wsClient) subscribe(id, query string, vars map[string]any) <-chan liveEvent {
	c.t.Helper()
	ch := make(chan liveEvent, 1000)
	c.mu.Lock()
	c.subs[id] = ch
	c.mu.Unlock()
	require.NoError(c.t, wsjson.Write(c.ctx, c.conn, map[string]any{"id": id, "type": "subscribe",
		"payload": map[string]any{"query": query, "variables": vars}}))
	return ch
}

// complete ends the subscription id.
func (c *wsClient) complete(id string) {
	c.t.Helper()
	require.NoError(c.t, wsjson.Write(c.ctx, c.conn, map[string]any{"id": id, "type": "complete"}))
}

// next is the subscription's next event, within wait.
func nextEvent(t *testing.T, events <-chan liveEvent, wait time.Duration) liveEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		require.True(t, ok, "the subscription ended")
		return ev
	case <-time.After(wait):
		t.Fatalf("no event within %s", wait)
		return liveEvent{}
	}
}

const eventChangesQuery = `subscription($eventId: ID!, $after: ID) { eventChanges(eventId: $eventId, after: $after) {
	cursor type eventId sessionId status session { title } } }`

// TestSubscriptionDeliversACommittedChange: a session created over REST reaches a subscriber over
// each protocol within a second, with its current state.
func TestSubscriptionDeliversACommittedChange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := b.live()
	ev := str(b.createEvent(b.acme, "Live"), "id")
	speaker := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+ev+"/speakers", b.acme,
		speakerBody("ada@example.test")).Obj(), "id")
	for name, subscribe := range map[string]func(*testing.T, *httptest.Server, string, string, map[string]any) <-chan liveEvent{
		"sse": sseSubscribe, "ws": wsSubscribe} {
		t.Run(name, func(t *testing.T) {
			waitSubscribers(t, b.res.Ops.Feed, 0)
			events := subscribe(t, srv, b.acme, eventChangesQuery, map[string]any{"eventId": ev})
			waitSubscribers(t, b.res.Ops.Feed, 1)
			b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+ev+"/sessions", b.acme, map[string]any{
				"title": "Live " + name, "description": nil, "formatId": nil, "speakerIds": []any{speaker}})
			got := nextEvent(t, events, time.Second)
			require.Empty(t, got.Errors)
			change := got.Data["eventChanges"].(map[string]any)
			for change["type"] != "SESSION_CREATED" { // the speaker's own changes come first
				got = nextEvent(t, events, time.Second)
				change = got.Data["eventChanges"].(map[string]any)
			}
			require.Equal(t, "SESSION_CREATED", change["type"])
			require.Equal(t, ev, change["eventId"])
			require.Equal(t, "Live "+name, change["session"].(map[string]any)["title"])
		})
	}
}

// TestSubscriptionCarriesTheAgendaConflicts: a scheduling change delivers, in the same message,
// the agenda's conflicts as they are once it committed — each message reads them anew.
func TestSubscriptionCarriesTheAgendaConflicts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := b.live()
	st := b.stage()
	w := st.w
	events := sseSubscribe(t, srv, b.acme, `subscription($eventId: ID!) {
		eventChanges(eventId: $eventId, types: [SESSION_SCHEDULED]) { sessionId event { agenda { conflicts { kind sessionIds } } } } }`,
		map[string]any{"eventId": w.event})
	require.Eventually(t, func() bool { return b.res.Ops.Feed.Subscribers() == 1 }, 5*time.Second, 5*time.Millisecond)
	conflicts := func() []any {
		t.Helper()
		got := nextEvent(t, events, time.Second)
		require.Empty(t, got.Errors)
		change := got.Data["eventChanges"].(map[string]any)
		return change["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"].([]any)
	}
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z").Status)
	require.Empty(t, conflicts())
	// Alan speaks in both: the second placement double-books him.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T10:30:00Z", "2027-09-10T11:15:00Z").Status)
	require.Equal(t, []any{map[string]any{"kind": "speaker", "sessionIds": []any{st.go1, st.go2}}}, conflicts())
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	require.Empty(t, conflicts())
}
