//go:build !reliability && !e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
	"github.com/podium/podium/rest"
)

// TestMain gives the shutdown tests their databases; the reliability and e2e builds have their own.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// running is serve in this process, stopped by cancelling its context as SIGTERM does.
type running struct {
	base string
	key  string
	db   *dbx.DB
	stop context.CancelFunc
	// done is closed when serve returns, with its error in err.
	done chan struct{}
	err  error
}

// startServe runs serve on a fresh database with the rate limit and SMTP sink given, and waits
// until it is ready.
func startServe(t *testing.T, smtpURL string, limit rest.RateLimit) *running {
	t.Helper()
	url := pgtest.NewURL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg := config{DatabaseURL: url, Addr: addr, PublicURL: "http://" + addr, SMTPURL: smtpURL,
		MailFrom: "Podium <no-reply@podium.test>", DBMaxConns: 8, RateLimit: limit,
		DBStatementTimeout: defaultStatementTimeout, DBAcquireTimeout: defaultAcquireTimeout}

	db, err := dbx.Open(context.Background(), url, dbx.Options{MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	key, _, err := access.CreateKey(context.Background(), db.Ent, "Shutdown", "test")
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	r := &running{base: "http://" + addr, key: key, db: db, stop: cancel, done: make(chan struct{})}
	go func() { r.err = serve(ctx, cfg, true); close(r.done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(time.Minute):
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(r.base + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		require.True(t, time.Now().Before(deadline), "serve was not ready within 30 s")
		time.Sleep(50 * time.Millisecond)
	}
}

// post sends a REST POST and decodes the answer.
func (r *running) post(t *testing.T, path string, body any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, r.base+"/api/v1"+path, bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+r.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Less(t, resp.StatusCode, 300, "POST %s: %s", path, data)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

// stopWithin stops the server and fails t unless serve returns within bound.
func (r *running) stopWithin(t *testing.T, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	r.stop()
	select {
	case <-r.done:
		require.NoError(t, r.err)
	case <-time.After(bound):
		t.Fatalf("serve was still running %s after the signal", bound)
	}
	return time.Since(start)
}

// SIGTERM with jobs queued but none running, while clients that the rate limit refuses keep
// sending: the server exits within 5 s.
func TestShutdownWithQueuedJobs(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	r := startServe(t, sink.URL(), rest.RateLimit{PerSecond: 1, Burst: 1})

	// Jobs due in an hour: queued, not running.
	rc, err := jobs.NewClient(r.db, jobs.Config{})
	require.NoError(t, err)
	params := make([]river.InsertManyParams, 500)
	for i := range params {
		params[i] = river.InsertManyParams{Args: jobs.DeliverEmailArgs{EmailID: fmt.Sprint("later-", i)},
			InsertOpts: &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}}
	}
	_, err = rc.InsertMany(context.Background(), params)
	require.NoError(t, err)

	// Clients hammering with one key, almost all answered 429, on keep-alive connections.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var limited sync.Map
	for i := range 32 {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.base+"/api/v1/events", nil)
				req.Header.Set("Authorization", "Bearer "+r.key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					limited.Store(i, true)
				}
			}
		})
	}
	time.Sleep(time.Second)
	took := r.stopWithin(t, 5*time.Second)
	cancel()
	wg.Wait()
	_, ok := limited.Load(0)
	require.True(t, ok, "the clients were not rate limited")
	t.Logf("exited %s after the signal", took.Round(time.Millisecond))
}

// SIGTERM while deliveries are in flight: they finish (each email delivered once, none failed)
// and the server exits within its documented bound (shutdownBound).
func TestShutdownWithDeliveriesInFlight(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{Delay: 2 * time.Second})
	r := startServe(t, sink.URL(), rest.RateLimit{})
	ev := r.post(t, "/events", map[string]any{"name": "Shutdown", "type": "conference", "timezone": "UTC",
		"startsAt": "2027-06-10T09:00:00.000Z", "endsAt": "2027-06-12T18:00:00.000Z"})
	base := "/events/" + ev["id"].(string)
	var ids []any
	for _, name := range []string{"ada", "grace", "alan"} {
		sp := r.post(t, base+"/speakers", map[string]any{"id": nil, "firstName": name, "lastName": "Speaker",
			"email": name + "@example.test", "title": nil, "company": nil, "bio": nil, "linkedinUrl": nil,
			"twitterUrl": nil, "websiteUrl": nil, "dietaryRequirements": "none", "tshirtSize": nil,
			"travelLogistics": nil, "workflowStatus": "invited"})
		ids = append(ids, sp["id"])
	}
	r.post(t, base+"/speakers/invite", map[string]any{"contactIds": ids})

	// Wait until the deliveries are at the sink, held by its delay.
	sys := viewer.System(context.Background(), "test: watch deliveries of the test's organization")
	deadline := time.Now().Add(10 * time.Second)
	for {
		var sending int
		require.NoError(t, r.db.System.QueryRow(sys, `SELECT count(*) FROM river_job
			WHERE kind = 'deliver_email' AND state = 'running'`).Scan(&sending))
		if sending == len(ids) {
			break
		}
		require.True(t, time.Now().Before(deadline), "the deliveries did not start")
		time.Sleep(20 * time.Millisecond)
	}
	took := r.stopWithin(t, shutdownBound)
	require.Len(t, sink.Messages(), len(ids))
	var sent int
	require.NoError(t, r.db.System.QueryRow(sys, `SELECT count(*) FROM email_log WHERE status = 'sent'`).Scan(&sent))
	require.Equal(t, len(ids), sent)
	t.Logf("exited %s after the signal, with %d deliveries in flight", took.Round(time.Millisecond), len(ids))
}
