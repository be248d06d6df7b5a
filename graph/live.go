package graph

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/graph/operation"
)

// Subscriptions (docs/subscriptions.md) are served over WebSocket (graphql-transport-ws, and the
// older graphql-ws) and server-sent events (graphql-sse's distinct connections mode), both gqlgen's
// transports. The caller is authenticated before the transport runs, by the router, as for every
// request: a WebSocket's handshake carries the API key or the session cookie, and coder/websocket
// refuses a handshake from another origin.

// wsPingInterval is how often the server pings a WebSocket client (graphql-transport-ws ping); a
// client that answers no ping within twice this is gone, and its connection is closed.
const wsPingInterval = 20 * time.Second

// sseKeepAlive is how often an idle event stream gets a comment line, which keeps proxies from
// closing it and shows a dead client's connection to the server.
const sseKeepAlive = 20 * time.Second

// wsInitTimeout bounds the wait for a WebSocket client's connection_init.
const wsInitTimeout = 10 * time.Second

// CloseServiceRestart is the WebSocket close code Podium sends its clients when it shuts down
// (RFC 6455's 1012, Service Restart): reconnect, to another process, and resume.
const CloseServiceRestart = 1012

// wsIdleAfter is how long a WebSocket connection may hold no subscription before it is closed.
const wsIdleAfter = 5 * time.Minute

// liveConns are the open WebSocket connections. It closes those that hold no subscription for
// idleAfter, and all of them with CloseServiceRestart at shutdown: the HTTP server's Shutdown
// does not see connections it has handed over.
type liveConns struct {
	// held is how many subscriptions the connection with an id holds (the operations' Feed).
	held func(id string) int
	// accept accepts a connection; nil means coder/websocket's.
	accept    func(http.ResponseWriter, *http.Request, transport.WebsocketAcceptOptions) (transport.WebsocketConn, error)
	idleAfter time.Duration

	mu       sync.Mutex
	conns    map[*trackedConn]struct{}
	closed   bool
	next     atomic.Int64
	sweeping sync.Once
}

// newConnection gives a WebSocket request's context its connection's identity, which
// FeedLimits.PerConnection counts subscriptions by.
func (l *liveConns) newConnection(ctx context.Context) context.Context {
	return operation.WithConnection(ctx, "ws"+strconv.FormatInt(l.next.Add(1), 10))
}

// Accept accepts the connection with coder/websocket and tracks it.
func (l *liveConns) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	accept := l.accept
	if accept == nil {
		accept = transport.CoderWebsocketImplementation{}.Accept
	}
	conn, err := accept(w, r, opts)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = conn.WriteClose(CloseServiceRestart, "server restarting")
		_ = conn.Close()
		return nil, http.ErrServerClosed
	}
	if l.conns == nil {
		l.conns = map[*trackedConn]struct{}{}
	}
	tracked := &trackedConn{WebsocketConn: conn, l: l, id: operation.ConnectionOf(r.Context())}
	l.conns[tracked] = struct{}{}
	if l.held != nil && l.idleAfter > 0 {
		l.sweeping.Do(func() { go l.sweep() })
	}
	return tracked, nil
}

// sweep closes, every idleAfter/4, the connections that have held no subscription since the
// sweep before the last, until closeAll.
func (l *liveConns) sweep() {
	t := time.NewTicker(l.idleAfter / 4)
	defer t.Stop()
	for range t.C {
		now := time.Now()
		var idle []*trackedConn
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return
		}
		for c := range l.conns {
			switch {
			case l.held(c.id) > 0:
				c.idleSince = time.Time{}
			case c.idleSince.IsZero():
				c.idleSince = now
			case now.Sub(c.idleSince) >= l.idleAfter:
				idle = append(idle, c)
			}
		}
		l.mu.Unlock()
		for _, c := range idle {
			_ = c.WriteClose(websocketNormalClosure, "idle: no subscription")
		}
	}
}

// websocketNormalClosure is RFC 6455's 1000.
const websocketNormalClosure = 1000

// closeAll closes every connection with CloseServiceRestart, and refuses new ones.
func (l *liveConns) closeAll() {
	l.mu.Lock()
	l.closed = true
	conns := make([]transport.WebsocketConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.WriteClose(CloseServiceRestart, "server restarting")
	}
}

// trackedConn leaves liveConns when it closes.
type trackedConn struct {
	transport.WebsocketConn
	l  *liveConns
	id string
	// idleSince is when a sweep first found the connection holding no subscription (l.mu).
	idleSince time.Time
}

// Close closes the connection and forgets it.
func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.WebsocketConn.Close()
}

// SetReadLimit bounds the client's messages (transport.WebsocketReadLimiter).
func (c *trackedConn) SetReadLimit(limit int64) {
	if rl, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		rl.SetReadLimit(limit)
	}
}

// SetReadDeadline lets a missing pong close the connection (transport.WebsocketReadDeadliner).
func (c *trackedConn) SetReadDeadline(t time.Time) error {
	if rd, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return rd.SetReadDeadline(t)
	}
	return nil
}

// websocket is the WebSocket transport.
func (l *liveConns) websocket() transport.Websocket {
	return transport.Websocket{Implementation: l, InitTimeout: wsInitTimeout, PingPongInterval: wsPingInterval}
}

// IsStream reports whether r asks for a subscription transport: a WebSocket handshake or an
// event stream. Such a request lasts as long as its subscriptions, beyond any request budget.
func IsStream(r *http.Request) bool {
	return r.Header.Get("Upgrade") != "" || transport.SSE{}.Supports(r)
}

// flushWriter gives gqlgen's SSE transport the http.Flusher it asks for, through the wrappers of
// the router's middleware (http.ResponseController finds the connection).
type flushWriter struct{ http.ResponseWriter }

// Flush sends what was written.
func (w flushWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (w flushWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// isSubscription reports whether ctx is a subscription's. Its responses are its events, and each
// is produced while waiting for the next change: the request budgets and places of queries do not
// apply.
func isSubscription(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	op := graphql.GetOperationContext(ctx).Operation
	return op != nil && op.Operation == ast.Subscription
}

// subscriptionEvents gives each event of a subscription loaders of its own, so that what it
// reads is current, not what an earlier event cached.
type subscriptionEvents struct{ ops *operation.Service }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = subscriptionEvents{}

// ExtensionName names the extension.
func (subscriptionEvents) ExtensionName() string { return "PodiumSubscriptionEvents" }

// Validate accepts any schema.
func (subscriptionEvents) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse gives a subscription's event fresh loaders.
func (s subscriptionEvents) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if isSubscription(ctx) && s.ops != nil {
		ctx = s.ops.WithLoaders(ctx)
	}
	return next(ctx)
}
