package pgtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Proxy stands between a test's code and PostgreSQL, so that the test can take the database away
// and give it back: Down closes every connection and refuses new ones, as a stopped server does;
// Blackhole accepts connections and never answers, as an unreachable host does.
type Proxy struct {
	t      testing.TB
	target func() (net.Conn, error)
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	hang  bool
}

// NewProxy proxies the database of dbURL and returns the proxy, up, and the URL that reaches the
// database through it. The proxy is taken down when the test ends.
func NewProxy(t testing.TB, dbURL string) (*Proxy, string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	require.NoError(t, err)
	network, address := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, address = "unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	}
	p := &Proxy{t: t, conns: map[net.Conn]bool{},
		target: func() (net.Conn, error) {
			return (&net.Dialer{}).DialContext(context.Background(), network, address)
		}}
	p.Up()
	t.Cleanup(p.Down)
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: p.addr, Path: "/" + cfg.Database,
		RawQuery: "sslmode=disable"}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	return p, u.String()
}

// Up listens (again, on the same address) and forwards connections.
func (p *Proxy) Up() {
	p.t.Helper()
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
	require.NoError(p.t, err)
	p.mu.Lock()
	p.ln, p.addr, p.hang = ln, ln.Addr().String(), false
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
}

func (p *Proxy) serve(c net.Conn) {
	p.mu.Lock()
	p.conns[c] = true
	hang := p.hang
	p.mu.Unlock()
	if hang {
		return // held open, never answered, closed by Down
	}
	s, err := p.target()
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[s] = true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
	_, _ = io.Copy(c, s)
	_ = c.Close()
}

// Down stops listening and cuts every connection.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Blackhole cuts every connection, then accepts new ones without ever answering.
func (p *Proxy) Blackhole() {
	p.Down()
	p.Up()
	p.mu.Lock()
	p.hang = true
	p.mu.Unlock()
}
