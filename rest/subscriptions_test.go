package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/operation"
)

// live starts a change feed for the bundle's operations and serves its router over TCP, as
// subscriptions need; both end with the test.
func (b *testBundle) live() *httptest.Server {
	b.t.Helper()
	feed := operation.NewFeed(b.db, b.quietLog(), operation.DefaultFeedLimits)
	b.res.Ops.Feed = feed
	ctx, cancel := context.WithCancel(context.Background())
	go feed.Run(ctx)
	b.t.Cleanup(func() { feed.Close(); cancel() })
	select {
	case <-feed.Listening():
	case <-time.After(5 * time.Second):
		b.t.Fatal("the change feed does not listen")
	}
	srv := httptest.NewServer(b.handler)
	b.t.Cleanup(srv.Close)
	return srv
}

// liveEvent is one event of a subscription: its data, or its errors.
type liveEvent struct {
	Data   map[string]any   `json:"data"`
	Errors []map[string]any `json:"errors"`
}

// sseSubscribe starts a subscription over server-sent events (graphql-sse, distinct connections)
// and returns its events as they come.
func sseSubscribe(t *testing.T, srv *httptest.Server, key, query string, vars map[string]any) <-chan liveEvent {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // the reading goroutine closes it
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	out := make(chan liveEvent, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev liveEvent
				if json.Unmarshal([]byte(data), &ev) == nil {
					out <- ev
				}
			}
			if line == "event: complete" {
				return
			}
		}
	}()
	return out
}

// wsSubscribe starts a subscription over a WebSocket (graphql-transport-ws) and returns its
// events as they come.
func wsSubscribe(t *testing.T, srv *httptest.Server, key, query string, vars map[string]any) <-chan liveEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + key}},
	})
	require.NoError(t, err)
	if resp.Body != nil {
		_ = resp.Body.Close()
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	require.NoError(t, wsjson.Write(ctx, conn, map[string]any{"type": "connection_init"}))
	var ack map[string]any
	require.NoError(t, wsjson.Read(ctx, conn, &ack))
	require.Equal(t, "connection_ack", ack["type"])
	require.NoError(t, wsjson.Write(ctx, conn, map[string]any{"id": "1", "type": "subscribe",
		"payload": map[string]any{"query": query, "variables": vars}}))
	out := make(chan liveEvent, 100)
	go func() {
		defer close(out)
		for {
			var msg struct {
				Type    string          `json:"type"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := wsjson.Read(ctx, conn, &msg); err != nil {
				return
			}
			switch msg.Type {
			case "ping":
				_ = wsjson.Write(ctx, conn, map[string]any{"type": "pong"})
			case "next":
				var ev liveEvent
				if json.Unmarshal(msg.Payload, &ev) == nil {
					out <- ev
				}
			case "error":
				var errs []map[string]any
				_ = json.Unmarshal(msg.Payload, &errs)
				out <- liveEvent{Errors: errs}
				return
			case "complete":
				return
			}
		}
	}()
	return out
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
			events := subscribe(t, srv, b.acme, eventChangesQuery, map[string]any{"eventId": ev})
			time.Sleep(100 * time.Millisecond) // the subscription is registered
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
