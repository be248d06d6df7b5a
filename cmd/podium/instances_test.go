//go:build reliability

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// balancer is a round-robin load balancer over instances, as an operator would put in front of
// them: httputil.ReverseProxy with a transport that takes the next backend for each request and
// skips one that refuses connections (a health-checking balancer stops sending to a dead
// instance; refusing the connection means the request never reached it). A request lost with an
// instance — sent, then the connection closed before the whole answer came back — is answered 502
// with ProxyErrorHeader naming the backend, so that the test can tell it from Podium's own 5xx.
type balancer struct {
	backends []*url.URL
	next     atomic.Uint64
	proxy    *httputil.ReverseProxy
}

// proxyErrorHeader marks the balancer's own 502s with the backend that failed.
const proxyErrorHeader = "X-Balancer-Error"

type backendKey struct{}

func newBalancer(servers []*server) *balancer {
	b := &balancer{}
	for _, s := range servers {
		u, _ := url.Parse(s.URL())
		b.backends = append(b.backends, u)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns, transport.MaxIdleConnsPerHost = 400, 200
	b.proxy = &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL.Scheme = "http" },
		Transport: roundRobin{b: b, inner: transport},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			backend, _ := r.Context().Value(backendKey{}).(*atomic.Value)
			name := "?"
			if backend != nil {
				if v, ok := backend.Load().(string); ok {
					name = v
				}
			}
			w.Header().Set(proxyErrorHeader, name)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return b
}

// ServeHTTP keeps the body, so that a request refused by a dead backend can go to the next one.
func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	b.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), backendKey{}, new(atomic.Value))))
}

type roundRobin struct {
	b     *balancer
	inner http.RoundTripper
}

func (rr roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	var err error
	for range rr.b.backends {
		i := int(rr.b.next.Add(1) % uint64(len(rr.b.backends)))
		out := req.Clone(req.Context())
		out.URL.Host, out.Host = rr.b.backends[i].Host, rr.b.backends[i].Host
		if req.GetBody != nil {
			out.Body, _ = req.GetBody()
		}
		if v, ok := req.Context().Value(backendKey{}).(*atomic.Value); ok {
			v.Store(fmt.Sprint(i))
		}
		var resp *http.Response
		resp, err = rr.inner.RoundTrip(out)
		if err == nil {
			return buffered(resp)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, err
		}
	}
	return nil, err
}

// buffered reads the whole answer before the balancer writes any of it, so that an instance
// killed in the middle of its body is a lost request answered 502, not a client's cut connection
// under a 200 already sent.
func buffered(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Transfer-Encoding")
	resp.TransferEncoding = nil
	return resp, nil
}

// riverClientID reads the River client id of the server's latest start from its log.
func (s *server) riverClientID() string {
	s.t.Helper()
	data, err := os.ReadFile(s.logPath)
	require.NoError(s.t, err)
	m := regexp.MustCompile(`"msg":"River client started","client_id":"([^"]+)"`).FindAllSubmatch(data, -1)
	require.NotEmpty(s.t, m, "no River client started in the log")
	return string(m[len(m)-1][1])
}

// Instances figures: rate and burst of every key, and the clients sharing each key of the mix.
const (
	instancesRate     = 25
	instancesKeyShare = 5
	// instancesGreedyRate is the greedy key's pace, 4 times its limit (twice the limit still
	// offered when a loaded machine's test process keeps only half its ticks);
	// instancesGreedyInFlight bounds its requests in flight (100 a second answered within 6 s on
	// average).
	instancesGreedyRate     = 100
	instancesGreedyInFlight = 600
	instancesKillAfter      = overloadFor / 2
)

// TestInstances runs three instances on one database behind a round-robin balancer: 200 clients
// send the overload mix for a minute, one greedy key sends as fast as it can, and in the middle
// one instance is killed (SIGKILL) and restarted. Every acknowledged write must be in the
// database, the only 5xx may be the balancer's for requests lost with the killed instance, every
// email must arrive (duplicates within the crash bound) within a minute of the load's end, and
// the greedy key, paced well above its limit, must be allowed no more than its rate across the
// three instances together, and that rate within 10% when the machine could offer twice it. Periodic jobs run on the River leader only,
// and River UI shows the same jobs on every instance.
func TestInstances(t *testing.T) {
	ctx := context.Background()
	sink := mailtest.New(t, mailtest.Options{})
	dbURL := pgtest.NewURL(t)
	env := []string{fmt.Sprintf("PODIUM_RATE_LIMIT=%d", instancesRate), fmt.Sprintf("PODIUM_RATE_BURST=%d", instancesRate)}
	var servers []*server
	for range 3 {
		servers = append(servers, startServer(t, serverOpts{SMTPURL: sink.URL(), DatabaseURL: dbURL, Env: env}))
	}
	lb := newBalancer(servers)
	front := &server{t: t, addr: freeAddr(t)}
	hs := &http.Server{Addr: front.addr, Handler: lb, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.ListenAndServe() }()
	t.Cleanup(func() { _ = hs.Close() })
	db := servers[0].openDB()

	keys := make([]string, overloadClients/instancesKeyShare+1)
	parallel(t, len(keys), 4, func(i int) error {
		keys[i] = servers[i%3].createKey("Acme Events")
		return nil
	})
	greedyKey, mixKeys := keys[0], keys[1:]
	clients := make([]*apiClient, len(mixKeys))
	for i, k := range mixKeys {
		clients[i] = newClient(front, k, overloadClients)
	}

	// Periodic jobs: one leader, one prune job, however many instances started.
	requireOneLeader(t, db)

	st, events := seedOverload(t, "Instances", func(e int) *apiClient { return clients[e] })

	var mu sync.Mutex
	var samples []sample
	type failure struct {
		op     overloadOp
		status int
		err    error
	}
	var failures []failure
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(overloadFor)
	for c := range overloadClients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 11))
			api := clients[c/instancesKeyShare]
			var mine []sample
			for time.Now().Before(deadline) {
				s := st.request(ctx, api, events[rng.IntN(len(events))], rng)
				mine = append(mine, s)
			}
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		})
	}

	// The greedy key, straight at the balancer, paced (see pacedLoad).
	greedyDone := make(chan pacedResult, 1)
	wg.Go(func() { greedyDone <- pacedLoad(ctx, newClient(front, greedyKey, instancesGreedyInFlight), deadline) })

	// The kill, in the middle.
	killed := servers[1]
	time.Sleep(instancesKillAfter)
	killedClient := killed.riverClientID()
	killed.stop(syscall.SIGKILL)
	killedAt := time.Now()
	time.Sleep(2 * time.Second)
	killed.restart()
	restartedIn := time.Since(killedAt)
	wg.Wait()
	greedy := <-greedyDone
	elapsed := time.Since(start)

	report(t, samples, elapsed)
	lost := 0
	for _, s := range samples {
		if s.err == nil && s.status < 500 && (s.status < 400 || s.status == http.StatusTooManyRequests) {
			continue
		}
		failures = append(failures, failure{op: s.op, status: s.status, err: s.err})
	}
	// A 502 of the balancer is a request lost with the killed instance; anything else failed.
	for _, f := range failures {
		if f.status == http.StatusBadGateway {
			lost++
			continue
		}
		require.Fail(t, "request failed", "%s: %d %v", f.op, f.status, f.err)
	}
	require.LessOrEqual(t, lost, overloadClients, "more requests lost than were in flight")
	// The greedy key's other answers are its requests lost with the killed instance, at most those
	// in flight.
	require.LessOrEqual(t, greedy.other, int64(instancesGreedyInFlight), "greedy requests that neither passed nor were limited")

	// Every acknowledged write is there.
	var n int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM contacts WHERE id = ANY($1)`, st.ackSpeakers).Scan(&n))
	require.Equal(t, len(st.ackSpeakers), n, "acknowledged speakers in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1)`, st.ackSessions).Scan(&n))
	require.Equal(t, len(st.ackSessions), n, "acknowledged sessions in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1) AND cancelled_at IS NOT NULL`,
		st.ackCancels).Scan(&n))
	require.Equal(t, len(st.ackCancels), n, "acknowledged cancellations in the database")

	// Deliveries the killed instance left running are retried by the other instances once they
	// have run past the email timeout (jobs.Rescuer): every email arrives within a minute.
	waitDelivered(t, db, time.Minute)
	var rescued int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'deliver_email'
		AND $1 = ANY(attempted_by) AND errors::text LIKE '%podium: rescued%'`, killedClient).Scan(&rescued))
	var emails int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM email_log`).Scan(&emails))
	var unsent int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM email_log WHERE status <> 'sent'`).Scan(&unsent))
	require.Zero(t, unsent, "emails not sent")
	delivered, _ := deliveries(t, sink)
	require.Len(t, delivered, emails, "every email delivered, and only those of the log")
	dupIDs, extra := duplicates(delivered)
	require.LessOrEqual(t, extra, jobs.MaxUnrecorded, "more duplicates than one crash may cause")

	t.Logf("three instances, one killed after %s and serving again %s later: %d requests lost with it (502 of the balancer); "+
		"%d speakers, %d sessions, %d cancellations acknowledged and found; %d emails, %d Message-IDs duplicated (%d extra), "+
		"%d deliveries rescued; greedy key: %s",
		instancesKillAfter, restartedIn.Round(time.Millisecond), lost, len(st.ackSpeakers), len(st.ackSessions),
		len(st.ackCancels), emails, dupIDs, extra, rescued, greedy)
	// Whatever the machine's speed, the three instances together never allow the key more than its
	// limit. Whether they allow it all of it can be told only when the load offered twice the
	// limit; on a machine too slow for that, TestSharedRateLimitIsJudged (the key alone) tells it.
	require.NoError(t, greedy.withinLimit(), "the greedy key across three instances")
	if err := greedy.offeredEnough(); err != nil {
		t.Logf("greedy key: %v", err)
	} else {
		require.NoError(t, greedy.judge(), "the greedy key across three instances")
	}

	// River UI shows the same jobs whichever instance answers.
	var lists []string
	for _, s := range servers {
		req, err := http.NewRequest(http.MethodGet, s.OperatorURL()+"/riverui/api/jobs?state=completed&limit=5", nil)
		require.NoError(t, err)
		req.SetBasicAuth("operator", operatorToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		lists = append(lists, regexp.MustCompile(`"id":\d+`).FindString(string(body)))
	}
	require.NotEmpty(t, lists[0])
	require.Equal(t, []string{lists[0], lists[0], lists[0]}, lists, "River UI's newest completed job on each instance")
	// An organization's key opens River UI on neither listener.
	for _, url := range []string{servers[0].URL(), servers[0].OperatorURL()} {
		req, err := http.NewRequest(http.MethodGet, url+"/riverui/api/jobs?state=completed&limit=5", nil)
		require.NoError(t, err)
		req.SetBasicAuth("operator", greedyKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Contains(t, []int{http.StatusNotFound, http.StatusUnauthorized}, resp.StatusCode, url)
	}
	requireOneLeader(t, db)
}

// requireOneLeader checks that River elected one leader among the instances and that the leader
// alone queued the periodic prune job (once at start, then hourly).
func requireOneLeader(t *testing.T, db *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var leaders, prunes int
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_leader`).Scan(&leaders))
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'prune_idempotency_records'`).Scan(&prunes))
		require.LessOrEqual(t, leaders, 1)
		require.LessOrEqual(t, prunes, 1, "the prune job was queued more than once in its period")
		if leaders == 1 && prunes == 1 {
			return
		}
		require.True(t, time.Now().Before(deadline), "after 30 s, %d leaders and %d prune jobs", leaders, prunes)
		time.Sleep(200 * time.Millisecond)
	}
}

// pacedResult is what pacedLoad sent and what came of it.
type pacedResult struct {
	offered, allowed, refused, other int64
	took                             time.Duration
}

// pacedLoad sends GET /events with api's key at instancesGreedyRate requests a second until
// deadline, each request in its own goroutine whatever the latency (at most
// instancesGreedyInFlight at once; a tick that finds them all busy sends nothing), and counts what
// it sent and how each was answered. Its offered load is therefore known, and well above the key's
// limit however slow the machine: a closed loop of clients on a slow machine sends too little to
// reach its limit at all, and would pass a limiter that is not shared.
func pacedLoad(ctx context.Context, api *apiClient, deadline time.Time) pacedResult {
	var offered, allowed, refused, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	inFlight := make(chan struct{}, instancesGreedyInFlight)
	tick := time.NewTicker(time.Second / instancesGreedyRate)
	defer tick.Stop()
	for now := range tick.C {
		if now.After(deadline) {
			break
		}
		select {
		case inFlight <- struct{}{}:
		default:
			continue
		}
		offered.Add(1)
		wg.Go(func() {
			defer func() { <-inFlight }()
			r, err := api.do(ctx, http.MethodGet, "/events", nil)
			switch {
			case err == nil && r.Status == http.StatusOK:
				allowed.Add(1)
			case err == nil && r.Status == http.StatusTooManyRequests:
				refused.Add(1)
			default:
				other.Add(1)
			}
		})
	}
	took := time.Since(start)
	wg.Wait()
	return pacedResult{offered: offered.Load(), allowed: allowed.Load(), refused: refused.Load(), other: other.Load(), took: took}
}

// limit is what the key's bucket allows over the load's time: its burst at once, then its rate.
func (r pacedResult) limit() float64 { return instancesRate + instancesRate*r.took.Seconds() }

// offeredEnough tells whether the load offered at least twice the limit: only then can a limiter
// kept per instance — which would allow up to three times the limit — be told from a shared one.
func (r pacedResult) offeredEnough() error {
	if limit, sent := r.limit(), float64(r.offered); sent < 2*limit {
		return fmt.Errorf("offered %.0f, not twice the %.0f the limit allows: the check could not tell a shared limit "+
			"from one per instance", sent, limit)
	}
	return nil
}

// withinLimit checks that no more than the limit (and 10%) was allowed, however much was offered.
func (r pacedResult) withinLimit() error {
	if limit := r.limit(); float64(r.allowed) > 1.10*limit {
		return fmt.Errorf("allowed %d, more than the %.0f the limit allows (and 10%%)", r.allowed, limit)
	}
	return nil
}

// judge checks the limiter on the load: the share allowed of what was offered must be the limit's
// share within 10%, on a load that offered at least twice the limit (offeredEnough).
func (r pacedResult) judge() error {
	if err := r.offeredEnough(); err != nil {
		return err
	}
	limit, sent, got := r.limit(), float64(r.offered), float64(r.allowed)
	if want := limit / sent; math.Abs(got/sent-want) > 0.10*want {
		return fmt.Errorf("allowed %.3f of what was offered, the limit allows %.3f (%.1f%% off, more than 10%%)",
			got/sent, want, 100*(got-limit)/limit)
	}
	return nil
}

// String reports the load and its judgement's figures.
func (r pacedResult) String() string {
	return fmt.Sprintf("%d offered in %s (%.1f/s), %d allowed (%.3f of offered), %d refused, %d lost; the limit allows %.0f "+
		"(%.3f of offered), allowed is %.1f%% off", r.offered, r.took.Round(time.Millisecond),
		float64(r.offered)/r.took.Seconds(), r.allowed, float64(r.allowed)/float64(r.offered), r.refused, r.other,
		r.limit(), r.limit()/float64(r.offered), 100*(float64(r.allowed)-r.limit())/r.limit())
}

// TestSharedRateLimitIsJudged: the greedy key's check of TestInstances tells a shared limit from
// one per instance. Three instances on one database, a key paced at 4 times its limit for 20 s:
// with the shared limiter the check passes; with PODIUM_RATE_LIMIT_LOCAL (a bucket per process,
// so three times the limit across the three) it fails.
func TestSharedRateLimitIsJudged(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(map[bool]string{false: "Shared", true: "PerInstance"}[local], func(t *testing.T) {
			dbURL := pgtest.NewURL(t)
			env := []string{fmt.Sprintf("PODIUM_RATE_LIMIT=%d", instancesRate), fmt.Sprintf("PODIUM_RATE_BURST=%d", instancesRate)}
			if local {
				env = append(env, "PODIUM_RATE_LIMIT_LOCAL=1")
			}
			var servers []*server
			for range 3 {
				servers = append(servers, startServer(t, serverOpts{DatabaseURL: dbURL, Env: env}))
			}
			front := &server{t: t, addr: freeAddr(t)}
			hs := &http.Server{Addr: front.addr, Handler: newBalancer(servers), ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = hs.ListenAndServe() }()
			t.Cleanup(func() { _ = hs.Close() })
			key := servers[0].createKey("Acme Events")

			r := pacedLoad(context.Background(), newClient(front, key, instancesGreedyInFlight), time.Now().Add(20*time.Second))
			t.Logf("%s", r)
			if local {
				require.Error(t, r.judge(), "a limit per instance passed the check")
			} else {
				require.NoError(t, r.judge())
			}
		})
	}
}
