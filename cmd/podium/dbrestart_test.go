//go:build reliability

package main

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgcluster"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// Restart figures: the clients of the mixed load, and how long PostgreSQL stays down.
const (
	restartClients = 50
	restartDown    = 3 * time.Second
	// restartBack is how soon after PostgreSQL accepts connections again Podium must serve.
	restartBack = 5 * time.Second
	// restartDelivered is how soon after PostgreSQL's last return every email must be delivered:
	// a delivery stranded by the outage (fetched as PostgreSQL went down, or its outcome unwritten)
	// is retried within seconds (jobs.Rescuer), not after River's five minutes.
	restartDelivered = 45 * time.Second
)

// restartRounds is how many times each mode restarts PostgreSQL in one run: an immediate restart
// strands a delivery only when it lands in the middle of a fetch, which one restart often misses.
var restartRounds = map[string]int{"fast": 1, "immediate": 4}

// timed is one answer of the load, with when it was sent and answered.
type timed struct {
	sample
	sent, answered time.Time
}

// TestDatabaseRestartFast and TestDatabaseRestartImmediate run Podium on a private PostgreSQL
// cluster of its own (durable: fsync and synchronous commit on) and restart the cluster under mixed
// load, in fast mode (sessions closed, checkpoint) or immediate mode (a crash, recovered from the
// WAL). While it is down every request answers 503 unavailable, quickly; once it is back Podium
// serves within 5 s without a restart of its own; no acknowledged write is lost; every email is
// delivered within 45 s of PostgreSQL's last return, with duplicates within the crash bound (a
// delivery the relay accepted whose sent mark the outage prevented is sent again). The immediate
// mode restarts four times in one run (restartRounds).
func TestDatabaseRestartFast(t *testing.T) { testDatabaseRestart(t, "fast") }

// TestDatabaseRestartImmediate: see TestDatabaseRestartFast.
func TestDatabaseRestartImmediate(t *testing.T) { testDatabaseRestart(t, "immediate") }

func testDatabaseRestart(t *testing.T, mode string) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o711)) // the server user must reach it when tests run as root
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Database: "podium"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Remove(context.Background()) })

	sink := mailtest.New(t, mailtest.Options{})
	srv := startServer(t, serverOpts{SMTPURL: sink.URL(), DatabaseURL: cluster.URL("podium")})
	db := srv.openDB()
	api := newClient(srv, srv.createKey("Acme Events"), restartClients)

	st, events := seedOverload(t, "Restart", func(int) *apiClient { return api })

	var mu sync.Mutex
	var answers []timed
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for c := range restartClients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 13))
			for loadCtx.Err() == nil {
				sent := time.Now()
				s := st.request(ctx, api, events[rng.IntN(len(events))], rng)
				mu.Lock()
				answers = append(answers, timed{s, sent, time.Now()})
				mu.Unlock()
			}
		})
	}

	// stopping is when the restart began: a fast shutdown refuses new connections while it
	// checkpoints, which on a busy machine takes seconds before the server is down.
	type outage struct {
		mode                       string
		stopping, down, up, served time.Time
	}
	var outages []outage
	for range restartRounds[mode] {
		time.Sleep(5 * time.Second)
		o := outage{mode: mode, stopping: time.Now()}
		require.NoError(t, cluster.Restart(ctx, mode, func() {
			o.down = time.Now()
			time.Sleep(restartDown)
		}))
		o.up = time.Now()
		// Serving again: a read through Podium answers 200.
		for {
			r, err := api.do(ctx, http.MethodGet, "/events/"+events[0], nil)
			if err == nil && r.Status == http.StatusOK {
				o.served = time.Now()
				break
			}
			require.Less(t, time.Since(o.up), 30*time.Second, "Podium is not serving 30 s after PostgreSQL came back")
			time.Sleep(50 * time.Millisecond)
		}
		outages = append(outages, o)
	}
	time.Sleep(5 * time.Second)
	stopLoad()
	wg.Wait()

	// Answers: 2xx and 429 at any time, 503 unavailable only around an outage, nothing else, and
	// none slow while the database was down.
	statuses := map[int]int{}
	var downLatencies []time.Duration
	for _, a := range answers {
		require.NoError(t, a.err, "%s: no response", a.op)
		statuses[a.status]++
		during := false
		for _, o := range outages {
			if a.answered.After(o.stopping) && a.sent.Before(o.served) {
				during = true
			}
			if a.sent.After(o.down) && a.answered.Before(o.up) {
				downLatencies = append(downLatencies, a.answered.Sub(a.sent))
			}
		}
		switch {
		case a.status/100 == 2, a.status == http.StatusTooManyRequests:
		case a.status == http.StatusServiceUnavailable && during:
		default:
			require.Fail(t, "unexpected answer", "%s: %d (during an outage: %v)", a.op, a.status, during)
		}
	}
	sort.Slice(downLatencies, func(i, j int) bool { return downLatencies[i] < downLatencies[j] })
	require.NotEmpty(t, downLatencies, "no request was sent while PostgreSQL was down")
	require.Less(t, percentile(downLatencies, 100), 3*time.Second, "a request hung while PostgreSQL was down")
	for _, o := range outages {
		require.Less(t, o.served.Sub(o.up), restartBack, "%s: serving again took too long", o.mode)
	}

	// Every acknowledged write is there.
	var n int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM contacts WHERE id = ANY($1)`, st.ackSpeakers).Scan(&n))
	require.Equal(t, len(st.ackSpeakers), n, "acknowledged speakers in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1)`, st.ackSessions).Scan(&n))
	require.Equal(t, len(st.ackSessions), n, "acknowledged sessions in the database")
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE id = ANY($1) AND cancelled_at IS NOT NULL`,
		st.ackCancels).Scan(&n))
	require.Equal(t, len(st.ackCancels), n, "acknowledged cancellations in the database")

	// River resumed: every email is delivered, soon.
	waitDelivered(t, db, restartDelivered-time.Since(outages[len(outages)-1].up))
	deliveredIn := time.Since(outages[len(outages)-1].up)
	var emails, unsent int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status <> 'sent') FROM email_log`).Scan(&emails, &unsent))
	require.Zero(t, unsent, "emails not sent")
	delivered, _ := deliveries(t, sink)
	require.Len(t, delivered, emails, "every email delivered, and only those of the log")
	dupIDs, extra := duplicates(delivered)

	for _, o := range outages {
		t.Logf("%s restart: stopping %s, down %s, Podium serving %s after PostgreSQL accepted connections again",
			o.mode, o.down.Sub(o.stopping).Round(time.Millisecond), o.up.Sub(o.down).Round(time.Millisecond),
			o.served.Sub(o.up).Round(time.Millisecond))
	}
	var rescued int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE errors::text LIKE '%podium: rescued%'`).Scan(&rescued))
	t.Logf("%d answers %v; while down: %d answers, p50 %s, max %s; %d speakers, %d sessions, %d cancellations "+
		"acknowledged and found; %d emails, %d Message-IDs duplicated (%d extra copies), every one delivered %s after "+
		"PostgreSQL's last return; %d stranded jobs rescued",
		len(answers), statuses, len(downLatencies), percentile(downLatencies, 50).Round(time.Millisecond),
		percentile(downLatencies, 100).Round(time.Millisecond), len(st.ackSpeakers), len(st.ackSessions),
		len(st.ackCancels), emails, dupIDs, extra, deliveredIn.Round(time.Millisecond), rescued)
	require.LessOrEqual(t, extra, len(outages)*jobs.MaxUnrecorded, "more duplicates than the outages may cause")
}
