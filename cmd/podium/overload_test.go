//go:build reliability

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// Overload figures: overloadClients clients send requests back to back, with no pause, for
// overloadFor, spread over overloadEvents events of the same organization.
const (
	overloadClients = 200
	overloadFor     = 60 * time.Second
	overloadEvents  = 4
)

// overloadOp is one kind of request of the overload mix.
type overloadOp string

const (
	opGetEvent      overloadOp = "GET event"
	opListSessions  overloadOp = "GET sessions"
	opListSpeakers  overloadOp = "GET speakers"
	opCreateSpeaker overloadOp = "POST speaker"
	opCreateSession overloadOp = "POST session"
	opCancelSession overloadOp = "POST cancel"
)

// overloadMix is the share of each request, in percent: half reads, half writes.
var overloadMix = []struct {
	op     overloadOp
	weight int
}{
	{opGetEvent, 20}, {opListSessions, 15}, {opListSpeakers, 15},
	{opCreateSpeaker, 15}, {opCreateSession, 20}, {opCancelSession, 15},
}

// sample is one request's outcome.
type sample struct {
	op      overloadOp
	status  int // 0 when no response arrived
	err     error
	latency time.Duration
}

// overloadState is what the clients share: the speakers sessions can be given, the sessions
// that can be cancelled, and every write acknowledged with 2xx, to find afterwards.
// seedOverload makes overloadEvents events ("<name> Conf N"), each with 5 speakers and 20
// sessions, through clientOf(e) for event e, and returns the load's state over them.
func seedOverload(t *testing.T, name string, clientOf func(e int) *apiClient) (*overloadState, []string) {
	st := &overloadState{speakers: map[string][]string{}, cancellable: map[string][]string{}}
	events := make([]string, overloadEvents)
	for e := range events {
		api := clientOf(e)
		events[e] = api.createEvent(t, fmt.Sprintf("%s Conf %d", name, e))
		for i := range 5 {
			id, err := api.mustCreate("/events/"+events[e]+"/speakers",
				speakerBody("Seed", fmt.Sprintf("seed%d-%d@example.test", e, i)))
			require.NoError(t, err)
			st.speakers[events[e]] = append(st.speakers[events[e]], id)
		}
		for i := range 20 {
			id, err := api.mustCreate("/events/"+events[e]+"/sessions",
				sessionBody(fmt.Sprintf("Seed %d", i), st.speakers[events[e]][i%5]))
			require.NoError(t, err)
			st.cancellable[events[e]] = append(st.cancellable[events[e]], id)
		}
	}
	return st, events
}

type overloadState struct {
	mu          sync.Mutex
	speakers    map[string][]string // event → speakers
	cancellable map[string][]string // event → sessions not cancelled yet
	ackSpeakers []string
	ackSessions []string
	ackCancels  []string
	serial      int
}

// TestOverload sends 200 clients' worth of mixed reads and writes at the real server for a
// minute, back to back. The server may slow down or answer 429, but never 5xx or a dropped
// connection, and every write it acknowledged is in the database afterwards.
//
// It does not run in parallel: it measures the machine, and another test's load would make its
// figures meaningless (the other reliability tests wait until it is done).
func TestOverload(t *testing.T) {
	ctx := context.Background()
	sink := mailtest.New(t, mailtest.Options{Discard: true})
	// All clients share one key: the per-key rate limit would answer most of them 429 and spare
	// the server the load this test is about.
	srv := startServer(t, serverOpts{SMTPURL: sink.URL()})
	db := srv.openDB()
	api := newClient(srv, srv.createKey("Acme Events"), overloadClients)

	st, events := seedOverload(t, "Overload", func(int) *apiClient { return api })

	var mu sync.Mutex
	var samples []sample
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(overloadFor)
	for c := range overloadClients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			var mine []sample
			for time.Now().Before(deadline) {
				mine = append(mine, st.request(ctx, api, events[rng.IntN(len(events))], rng))
			}
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	report(t, samples, elapsed)
	failures := map[string]int{}
	for _, s := range samples {
		switch {
		case s.err != nil:
			failures[fmt.Sprintf("%s: %v", s.op, s.err)]++
		case s.status == http.StatusTooManyRequests:
		case s.status >= 400:
			failures[fmt.Sprintf("%s: %d", s.op, s.status)]++
		}
	}
	require.Empty(t, failures, "requests that failed (no response, 5xx, or 4xx on valid requests)")

	// Every acknowledged write is there.
	var n int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM contacts WHERE id = ANY($1)`, st.ackSpeakers).Scan(&n))
	require.Equal(t, len(st.ackSpeakers), n, "acknowledged speakers in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1)`, st.ackSessions).Scan(&n))
	require.Equal(t, len(st.ackSessions), n, "acknowledged sessions in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1) AND cancelled_at IS NOT NULL`,
		st.ackCancels).Scan(&n))
	require.Equal(t, len(st.ackCancels), n, "acknowledged cancellations in the database")
	t.Logf("acknowledged writes found: %d speakers, %d sessions, %d cancellations", len(st.ackSpeakers),
		len(st.ackSessions), len(st.ackCancels))
}

// request sends one request of the mix to event and records what it wrote.
func (st *overloadState) request(ctx context.Context, api *apiClient, event string, rng *rand.Rand) sample {
	op := pick(rng)
	base := "/events/" + event
	var method, path string
	var body any
	var session string
	st.mu.Lock()
	switch op {
	case opGetEvent:
		method, path = http.MethodGet, base
	case opListSessions:
		method, path = http.MethodGet, base+"/sessions"
	case opListSpeakers:
		method, path = http.MethodGet, base+"/speakers"
	case opCreateSpeaker:
		st.serial++
		method, path = http.MethodPost, base+"/speakers"
		body = speakerBody("Load", fmt.Sprintf("load%d@example.test", st.serial))
	case opCancelSession:
		if list := st.cancellable[event]; len(list) > 0 {
			i := rng.IntN(len(list))
			session = list[i]
			st.cancellable[event] = slices.Delete(list, i, i+1)
			method, path = http.MethodPost, base+"/sessions/"+session+"/cancel"
			body = map[string]any{"cause": "organizer"}
			break
		}
		op = opCreateSession // nothing left to cancel
		fallthrough
	case opCreateSession:
		st.serial++
		speakers := st.speakers[event]
		ids := []string{speakers[rng.IntN(len(speakers))]}
		if other := speakers[rng.IntN(len(speakers))]; other != ids[0] {
			ids = append(ids, other)
		}
		method, path = http.MethodPost, base+"/sessions"
		body = sessionBody(fmt.Sprintf("Load %d", st.serial), ids...)
	}
	st.mu.Unlock()

	began := time.Now()
	r, err := api.do(ctx, method, path, body)
	s := sample{op: op, status: r.Status, err: err, latency: time.Since(began)}
	if err != nil || r.Status/100 != 2 || method == http.MethodGet {
		return s
	}
	var created struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(r.Body, &created)
	st.mu.Lock()
	defer st.mu.Unlock()
	switch op {
	case opCreateSpeaker:
		st.ackSpeakers = append(st.ackSpeakers, created.ID)
		st.speakers[event] = append(st.speakers[event], created.ID)
	case opCreateSession:
		st.ackSessions = append(st.ackSessions, created.ID)
		st.cancellable[event] = append(st.cancellable[event], created.ID)
	case opCancelSession:
		st.ackCancels = append(st.ackCancels, session)
	}
	return s
}

func pick(rng *rand.Rand) overloadOp {
	n := rng.IntN(100)
	for _, m := range overloadMix {
		if n < m.weight {
			return m.op
		}
		n -= m.weight
	}
	return overloadMix[0].op
}

// report logs throughput and latency, overall and per kind of request.
func report(t *testing.T, samples []sample, elapsed time.Duration) {
	t.Helper()
	byOp := map[overloadOp][]time.Duration{}
	statuses := map[int]int{}
	var all []time.Duration
	for _, s := range samples {
		byOp[s.op] = append(byOp[s.op], s.latency)
		all = append(all, s.latency)
		statuses[s.status]++
	}
	var lines []string
	for op, ds := range byOp {
		ds = sortedDurations(ds)
		lines = append(lines, fmt.Sprintf("  %-13s %6d requests  p50 %7s  p99 %7s  max %7s", op, len(ds),
			percentile(ds, 50).Round(time.Millisecond), percentile(ds, 99).Round(time.Millisecond),
			ds[len(ds)-1].Round(time.Millisecond)))
	}
	sort.Strings(lines)
	all = sortedDurations(all)
	t.Logf("%d clients for %s: %d requests, %.0f requests/s, p50 %s, p99 %s, max %s; statuses %v (0 = no response)\n%s",
		overloadClients, elapsed.Round(time.Millisecond), len(samples), float64(len(samples))/elapsed.Seconds(),
		percentile(all, 50).Round(time.Millisecond), percentile(all, 99).Round(time.Millisecond),
		all[len(all)-1].Round(time.Millisecond), statuses, strings.Join(lines, "\n"))
}
