//go:build bench

package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// WLIVE's shape: liveSubscribers subscribers to the sessions event, liveWS of them over WebSocket
// and the rest over server-sent events, and bursts of liveChanges changes.
const (
	liveSubscribers = 1000
	liveWS          = 200
	liveChanges     = 100
)

// liveBenchQuery is the subscription every WLIVE subscriber holds: the change alone, no session
// read back, so that the figures are the feed's and not a session query's.
const liveBenchQuery = `subscription($e: ID!) { eventChanges(eventId: $e) { cursor type at eventId sessionId status } }`

// liveStream is one WLIVE subscriber: the changes of the measured session it received, raw, with
// their receipt times; warm is set once it received a warm-up change (it is registered).
type liveStream struct {
	mu       sync.Mutex
	lines    [][]byte
	received []time.Time
	warm     atomic.Bool
	ended    atomic.Bool
}

// see records a message of the stream, received at.
func (s *liveStream) see(msg []byte, at time.Time, warmID, measuredID []byte, got *atomic.Int64) {
	switch {
	case bytes.Contains(msg, measuredID):
		s.mu.Lock()
		s.lines = append(s.lines, bytes.Clone(msg))
		s.received = append(s.received, at)
		s.mu.Unlock()
		got.Add(1)
	case bytes.Contains(msg, warmID):
		s.warm.Store(true)
	}
}

// benchLive is WLIVE: a burst of liveChanges session changes over REST (cancel, reinstate, …) by
// one client with nobody subscribed; then liveSubscribers subscriptions to the event, on a server
// started for this workload with the subscription limits raised, and the same burst again. It
// reports the delivery latency of every (subscriber, change) pair (receipt − the change's `at`),
// the changes some subscriber missed, the writes' latency with subscribers and its ratio to
// without, and the server's RSS per subscriber.
func benchLive(t *testing.T, bin, dbURL, key, eventID string) benchResult {
	t.Helper()
	raiseFileLimit(t, 2*liveSubscribers+512)
	srv := startServer(t, bin, dbURL, "PODIUM_LIVE_PER_CALLER=5000", "PODIUM_LIVE_PER_ORGANIZATION=5000",
		"PODIUM_LIVE_PER_CONNECTION=5000")
	writer := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}, Timeout: time.Minute}

	// Three sessions that may be cancelled: one for the burst alone, one to warm up the
	// subscriptions, one for the burst with subscribers.
	_, res, raw, err := request{method: http.MethodGet, url: srv.url + "/api/v1/events/" + eventID + "/sessions", key: key}.fetch(writer)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%.300s", raw)
	var list struct {
		Sessions []struct {
			ID          string  `json:"id"`
			CancelledAt *string `json:"cancelledAt"`
		} `json:"sessions"`
	}
	require.NoError(t, json.Unmarshal(raw, &list))
	var picked []string
	for _, s := range list.Sessions {
		if s.CancelledAt == nil && len(picked) < 3 {
			picked = append(picked, s.ID)
		}
	}
	require.Len(t, picked, 3, "three sessions that are not cancelled")
	aloneID, warmID, measuredID := picked[0], picked[1], picked[2]

	// change toggles session id: cancel when it is not cancelled, reinstate when it is.
	cancelled := map[string]bool{}
	change := func(id string) time.Duration {
		action, body := "/cancel", `{"cause":"organizer","message":"Benchmark","notifySpeakers":false}`
		if cancelled[id] {
			action, body = "/reinstate", `{"message":"Benchmark","notifySpeakers":false}`
		}
		d, res, raw, err := request{method: http.MethodPost, url: srv.url + "/api/v1/events/" + eventID + "/sessions/" + id + action,
			key: key, body: []byte(body)}.fetch(writer)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s %s: %.300s", action, id, raw)
		cancelled[id] = !cancelled[id]
		return d
	}
	burst := func(id string) []time.Duration {
		out := make([]time.Duration, 0, liveChanges)
		for range liveChanges {
			out = append(out, change(id))
		}
		return out
	}

	// Without subscribers: a warm-up pair, then the burst.
	change(aloneID)
	change(aloneID)
	alone := burst(aloneID)
	time.Sleep(time.Second)
	rssBefore := srv.rssKiB()

	// The subscribers, each on a connection of its own.
	ctx, cancel := context.WithCancel(context.Background())
	streams := make([]*liveStream, liveSubscribers)
	var got atomic.Int64
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	warmB, measuredB := []byte(warmID), []byte(measuredID)
	body := mustJSON(map[string]any{"query": liveBenchQuery, "variables": map[string]any{"e": eventID}})
	sse := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 2 * liveSubscribers, MaxIdleConnsPerHost: 2 * liveSubscribers,
		DisableCompression: true}}
	start := time.Now()
	opened := make(chan error, liveSubscribers)
	gate := make(chan struct{}, 32) // connections being opened at once
	for i := range streams {
		s := &liveStream{}
		streams[i] = s
		gate <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.ended.Store(true)
			if i < liveWS {
				liveWebSocket(ctx, srv, key, body, s, opened, gate, warmB, measuredB, &got)
			} else {
				liveSSE(ctx, sse, srv, key, body, s, opened, gate, warmB, measuredB, &got)
			}
		}()
	}
	for range streams {
		require.NoError(t, <-opened)
	}
	t.Logf("WLIVE: %d streams open (%d WebSocket) in %s", liveSubscribers, liveWS, time.Since(start).Round(time.Millisecond))

	// Registered: every subscriber received a warm-up change. A change made before a subscription
	// registered does not reach it, so warm-up changes go on until all have one.
	warmups := 0
	deadline := time.Now().Add(2 * time.Minute)
	for {
		change(warmID)
		warmups++
		wait := time.Now().Add(time.Second)
		n := 0
		for time.Now().Before(wait) {
			n = 0
			for _, s := range streams {
				if s.warm.Load() {
					n++
				}
			}
			if n == liveSubscribers {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if n == liveSubscribers {
			break
		}
		require.True(t, time.Now().Before(deadline), "WLIVE: only %d of %d subscribers registered", n, liveSubscribers)
	}
	t.Logf("WLIVE: all registered %s after the first connection, after %d warm-up changes", time.Since(start).Round(time.Millisecond), warmups)
	time.Sleep(time.Second)
	rssWith := srv.rssKiB()

	// With subscribers: the same burst on another session, then until every change reached every
	// subscriber or 30 s went by without progress.
	cpu, machine, self := srv.serverCPU(t), machineCPU(t), selfCPU(t)
	burstStart := time.Now()
	with := burst(measuredID)
	burstEnd := time.Now()
	want := int64(liveSubscribers * liveChanges)
	last, lastProgress := got.Load(), time.Now()
	for got.Load() < want && time.Since(lastProgress) < 30*time.Second {
		time.Sleep(50 * time.Millisecond)
		if n := got.Load(); n != last {
			last, lastProgress = n, time.Now()
		}
	}
	drained := time.Now()
	serverCPU, machineUsed, clientCPU := srv.serverCPU(t)-cpu, machineCPU(t)-machine, selfCPU(t)-self
	rssAfter := srv.rssKiB()
	t.Logf("WLIVE: burst of %d changes in %s; all deliveries %s after the burst's end; CPU: server %s, this client %s, machine %s",
		liveChanges, burstEnd.Sub(burstStart).Round(time.Millisecond), drained.Sub(burstEnd).Round(time.Millisecond), serverCPU,
		clientCPU, machineUsed)
	ended := 0
	for _, s := range streams {
		if s.ended.Load() {
			ended++
		}
	}
	cancel()
	wg.Wait()
	// Without subscribers again, once they have left: the machine may have changed meanwhile
	// (other processes), which this bounds.
	time.Sleep(time.Second)
	after := burst(aloneID)

	// Every (subscriber, change) pair: receipt − the change's at (milliseconds, the server's clock,
	// which is this machine's).
	var delivery []time.Duration
	missing, extra := 0, 0
	for _, s := range streams {
		s.mu.Lock()
		lines, received := s.lines, s.received
		s.mu.Unlock()
		seen := map[string]bool{}
		for j, line := range lines {
			var msg struct {
				Payload struct {
					Data struct {
						EventChanges struct {
							Cursor string `json:"cursor"`
							At     string `json:"at"`
						} `json:"eventChanges"`
					} `json:"data"`
				} `json:"payload"`
				Data struct {
					EventChanges struct {
						Cursor string `json:"cursor"`
						At     string `json:"at"`
					} `json:"eventChanges"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(line, &msg), "%s", line)
			c := msg.Data.EventChanges
			if c.Cursor == "" {
				c = msg.Payload.Data.EventChanges
			}
			if seen[c.Cursor] {
				extra++
				continue
			}
			seen[c.Cursor] = true
			at, err := time.Parse(time.RFC3339Nano, c.At)
			require.NoError(t, err, "%s", line)
			delivery = append(delivery, received[j].Sub(at))
		}
		missing += max(0, liveChanges-len(seen))
	}
	if missing > 0 {
		t.Errorf("WLIVE: %d of %d (subscriber, change) deliveries missing", missing, want)
	}
	perSubscriber := float64(rssWith-rssBefore) / liveSubscribers
	peak := srv.rssMB()
	t.Logf("WLIVE: RSS %d KiB before subscribing, %d KiB with %d subscribers, %d KiB after the burst, peak %.0f MB; "+
		"%d duplicates; %d streams ended early", rssBefore, rssWith, liveSubscribers, rssAfter, peak, extra, ended)
	// The peak RSS is in the line, not in rss: the peak-RSS target is the other workloads'.
	res2 := benchResult{name: "WLIVE", p50: pct(delivery, 50), p99: pct(delivery, 99)}
	res2.raw = fmt.Sprintf("subscribers=%d sse=%d ws=%d changes=%d delivery_p50_ms=%.2f delivery_p99_ms=%.2f delivery_max_ms=%.2f "+
		"missing=%d ended=%d write_p50_ms=%.2f write_p99_ms=%.2f write_alone_p50_ms=%.2f write_alone_p99_ms=%.2f "+
		"write_alone_after_p50_ms=%.2f "+
		"write_ratio_p50=%.2f write_ratio_p99=%.2f drain_ms=%d server_cpu_ms=%d client_cpu_ms=%d kib_per_subscriber=%.1f peak_rss_mb=%.1f",
		liveSubscribers, liveSubscribers-liveWS, liveWS, liveChanges, pct(delivery, 50), pct(delivery, 99), pct(delivery, 100),
		missing, ended, pct(with, 50), pct(with, 99), pct(alone, 50), pct(alone, 99), pct(after, 50),
		pct(with, 50)/pct(alone, 50), pct(with, 99)/pct(alone, 99), drained.Sub(burstEnd).Milliseconds(), serverCPU.Milliseconds(),
		clientCPU.Milliseconds(), perSubscriber, peak)
	return res2
}

// liveSSE holds one subscription over server-sent events until ctx ends, reporting on opened once
// the stream is open (its first comment line) and releasing a place of gate then.
func liveSSE(ctx context.Context, client *http.Client, srv server, key string, body []byte, s *liveStream, opened chan<- error,
	gate <-chan struct{}, warmID, measuredID []byte, got *atomic.Int64) {
	open := func(err error) {
		if opened != nil {
			opened <- err
			<-gate
			opened = nil
		}
	}
	defer func() { open(fmt.Errorf("WLIVE: an event stream ended before it opened")) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.url+"/graphql", bytes.NewReader(body))
	if err != nil {
		open(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		open(err)
		return
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		open(fmt.Errorf("WLIVE: event stream: %d", res.StatusCode))
		return
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		now := time.Now()
		line := sc.Bytes()
		switch {
		case len(line) > 0 && line[0] == ':':
			open(nil)
		case bytes.HasPrefix(line, []byte("data: ")):
			if bytes.Contains(line, []byte(`"errors"`)) {
				open(fmt.Errorf("WLIVE: event stream: %s", line))
				return
			}
			s.see(line[len("data: "):], now, warmID, measuredID, got)
		case string(line) == "event: complete":
			return
		}
	}
}

// liveWebSocket holds one subscription over a WebSocket (graphql-transport-ws) until ctx ends,
// reporting on opened once the connection is acknowledged.
func liveWebSocket(ctx context.Context, srv server, key string, body []byte, s *liveStream, opened chan<- error,
	gate <-chan struct{}, warmID, measuredID []byte, got *atomic.Int64) {
	open := func(err error) {
		if opened != nil {
			opened <- err
			<-gate
			opened = nil
		}
	}
	defer func() { open(fmt.Errorf("WLIVE: a WebSocket ended before it opened")) }()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.url, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + key}},
	})
	if err != nil {
		open(err)
		return
	}
	if res.Body != nil {
		_ = res.Body.Close()
	}
	defer func() { _ = conn.CloseNow() }()
	write := func(msg string) error { return conn.Write(ctx, websocket.MessageText, []byte(msg)) }
	if err := write(`{"type":"connection_init"}`); err != nil {
		open(err)
		return
	}
	if _, ack, err := conn.Read(ctx); err != nil {
		open(fmt.Errorf("WLIVE: no connection_ack: %w", err))
		return
	} else if !bytes.Contains(ack, []byte(`"connection_ack"`)) {
		open(fmt.Errorf("WLIVE: no connection_ack: %s", ack))
		return
	}
	if err := write(`{"id":"1","type":"subscribe","payload":` + string(body) + `}`); err != nil {
		open(err)
		return
	}
	open(nil)
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		now := time.Now()
		// gqlgen writes the type after the payload: look at both ends of the message.
		kind := func(k string) bool {
			k = `"type":"` + k + `"`
			return bytes.Contains(msg[:min(len(msg), 40)], []byte(k)) || bytes.Contains(msg[max(0, len(msg)-40):], []byte(k))
		}
		switch {
		case kind("next"):
			s.see(msg, now, warmID, measuredID, got)
		case kind("ping"):
			_ = write(`{"type":"pong"}`)
		case kind("error"), kind("complete"):
			return
		}
	}
}

// rssKiB is the server's resident set now (VmRSS), in KiB.
func (s server) rssKiB() int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb
		}
	}
	return 0
}

// raiseFileLimit raises this process's soft limit of open files to n when it is lower (up to the
// hard limit): each subscriber holds a connection. Servers started afterwards inherit it.
func raiseFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if lim.Cur >= n {
		return
	}
	lim.Cur = min(n, lim.Max)
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	require.GreaterOrEqual(t, lim.Cur, n, "open files: the hard limit is %d", lim.Max)
}

// selfCPU is the CPU time this process (the benchmark's clients) has used, user and system.
func selfCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
