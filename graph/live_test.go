package graph

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/operation"
)

// fakeConn records how it was closed.
type fakeConn struct {
	mu   sync.Mutex
	code int
}

func (c *fakeConn) Close() error                        { return nil }
func (c *fakeConn) NextReader() (int, io.Reader, error) { return 0, nil, io.EOF }
func (c *fakeConn) WriteJSON(any) error                 { return nil }
func (c *fakeConn) Subprotocol() string                 { return "graphql-transport-ws" }
func (c *fakeConn) WriteClose(code int, _ string) error {
	c.mu.Lock()
	c.code = code
	c.mu.Unlock()
	return nil
}
func (c *fakeConn) closedWith() int { c.mu.Lock(); defer c.mu.Unlock(); return c.code }

// TestLiveConnsCloseIdleAndAtShutdown: a WebSocket connection holding no subscription for
// idleAfter is closed (1000), one holding a subscription is not, and at shutdown every one is
// closed with 1012 and new ones are refused.
func TestLiveConnsCloseIdleAndAtShutdown(t *testing.T) {
	t.Parallel()
	holding := map[string]int{}
	var mu sync.Mutex
	l := &liveConns{idleAfter: 40 * time.Millisecond, held: func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return holding[id]
	}}
	accept := func() *fakeConn {
		conn := &fakeConn{}
		l.accept = func(http.ResponseWriter, *http.Request, transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
			return conn, nil
		}
		r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
		r = r.WithContext(l.newConnection(context.Background()))
		_, err := l.Accept(httptest.NewRecorder(), r, transport.WebsocketAcceptOptions{})
		require.NoError(t, err)
		mu.Lock()
		holding[operation.ConnectionOf(r.Context())] = 0
		mu.Unlock()
		return conn
	}
	idle := accept()
	busy := accept()
	mu.Lock()
	for id := range holding {
		holding[id] = 1
	}
	mu.Unlock()
	// The first connection's id is ws1: it gives its subscription up.
	mu.Lock()
	holding["ws1"] = 0
	mu.Unlock()
	require.Eventually(t, func() bool { return idle.closedWith() == websocketNormalClosure }, 2*time.Second, 10*time.Millisecond)
	require.Zero(t, busy.closedWith(), "a connection holding a subscription stays open")

	l.closeAll()
	require.Equal(t, CloseServiceRestart, busy.closedWith())
	l.accept = func(http.ResponseWriter, *http.Request, transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
		return &fakeConn{}, nil
	}
	_, err := l.Accept(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/graphql", nil), transport.WebsocketAcceptOptions{})
	require.ErrorIs(t, err, http.ErrServerClosed)
}
