//go:build reliability

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/jobs/mailtest"
)

// The reliability tests drive the real podium binary: it is built once per run, started as a
// child process on a fresh database, killed and restarted. What they check — that a crash loses
// no email and duplicates few, that an SMTP outage delays mail without losing it, that overload
// never answers 5xx — only holds for the process as shipped, signals, pools and all, so nothing
// here calls the server's packages in-process.

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// podiumBinary builds ./cmd/podium once per test run and returns the executable's path. The test
// binary runs in the package's directory, so "." is the command.
func podiumBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "podium-reliability-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "podium")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

// serverOpts configure startServer.
type serverOpts struct {
	// SMTPURL is the SMTP_URL the server delivers to; the sink of the test.
	SMTPURL string
	// Env adds variables to the server's environment.
	Env []string
	// DatabaseURL is the database to serve; empty makes a fresh one. Servers given the same URL
	// are instances of one Podium.
	DatabaseURL string
}

// server is a podium serve child process on its own database. Restart starts it again on the
// same database and address, as an operator's supervisor would after a crash.
type server struct {
	t           *testing.T
	bin         string
	databaseURL string
	addr        string
	// operatorAddr is the operator listener's (River UI, /metrics), reached with operatorToken.
	operatorAddr string
	env          []string
	logPath      string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

// startServer starts podium serve on a fresh migrated database and a free port, and waits until
// it is ready. The process is killed when t ends, if it still runs.
func startServer(t *testing.T, opts serverOpts) *server {
	t.Helper()
	dbURL := opts.DatabaseURL
	if dbURL == "" {
		dbURL = pgtest.NewURL(t)
	}
	s := &server{
		t:           t,
		bin:         podiumBinary(t),
		databaseURL: dbURL,
		addr:        freeAddr(t),
		logPath:     filepath.Join(t.TempDir(), "podium.log"),
	}
	s.operatorAddr = freeAddr(t)
	s.env = append(os.Environ(),
		"DATABASE_URL="+s.databaseURL,
		"PODIUM_ADDR="+s.addr,
		"PODIUM_OPERATOR_ADDR="+s.operatorAddr,
		"PODIUM_OPERATOR_TOKEN="+operatorToken,
		"PUBLIC_URL=http://"+s.addr,
		"SMTP_URL="+opts.SMTPURL,
		"MAIL_FROM=Podium <no-reply@podium.test>",
		"PODIUM_DEBUG=",
		// One key drives each test as fast as the server answers; rate limiting has its own tests
		// (rest/limits_test.go).
		"PODIUM_RATE_LIMIT=0",
	)
	s.env = append(s.env, opts.Env...)
	t.Cleanup(func() {
		if s.running() {
			s.stop(syscall.SIGKILL)
		}
		if t.Failed() {
			s.logTail(40)
		}
	})
	s.start()
	return s
}

// freeAddr returns a loopback address no one listens on now. The server binds it again on every
// restart: Go listens with SO_REUSEADDR, so the killed process's connections do not block it.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// URL is the server's base URL.
func (s *server) URL() string { return "http://" + s.addr }

// operatorToken is the PODIUM_OPERATOR_TOKEN of the servers the tests start.
const operatorToken = "reliability-operator-token"

// OperatorURL is the base URL of the server's operator listener.
func (s *server) OperatorURL() string { return "http://" + s.operatorAddr }

// start runs podium serve and waits for GET /readyz to answer 200.
func (s *server) start() {
	s.t.Helper()
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(s.t, err)
	cmd := exec.Command(s.bin, "serve")
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(s.t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.starts++
	s.mu.Unlock()

	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-exited:
			s.logTail(40)
			s.t.Fatalf("podium serve exited before it was ready: %v", cmd.ProcessState)
		default:
		}
		resp, err := client.Get(s.URL() + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("podium serve was not ready within 30s (last error: %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited == nil {
		return false
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// signal sends sig to the server without waiting for it to exit.
func (s *server) signal(sig syscall.Signal) {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	require.NoError(s.t, cmd.Process.Signal(sig))
}

// wait waits for the server to exit after a signal. A stop takes at most shutdownBound (25 s,
// serve.go), so a server that takes longer is stuck.
func (s *server) wait() {
	s.t.Helper()
	s.mu.Lock()
	exited := s.exited
	s.mu.Unlock()
	select {
	case <-exited:
	case <-time.After(45 * time.Second):
		s.t.Fatal("podium serve did not exit within 45s of the signal")
	}
}

// stop sends sig and waits for the server to exit.
func (s *server) stop(sig syscall.Signal) {
	s.t.Helper()
	s.signal(sig)
	s.wait()
}

// restart starts the server again on the same database and address.
func (s *server) restart() { s.t.Helper(); s.start() }

// logTail logs the last n lines the server wrote, for failures, leaving out the access log
// lines of requests that did not fail.
func (s *server) logTail(n int) {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return
	}
	var lines []string
	for line := range strings.Lines(string(data)) {
		if !strings.Contains(line, `"msg":"request"`) || strings.Contains(line, `"status":5`) {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	s.t.Logf("last lines of the podium log (%d starts):\n%s", s.starts, strings.Join(lines[max(0, len(lines)-n):], "\n"))
}

// createKey runs podium keys create against the server's database and returns the key, which
// the command prints alone on its last line.
func (s *server) createKey(org string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, "keys", "create", "--org", org)
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(s.t, cmd.Run(), "podium keys create: %s", stderr.String())
	var last string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	require.True(s.t, strings.HasPrefix(last, "pdm_"), "key line %q", last)
	return last
}

// testAppName is the application_name of the tests' own database sessions, which tells them
// apart from the server's.
const testAppName = "podium-reliability-test"

// openDB opens a pool on the server's database, for checks the API does not expose.
func (s *server) openDB() *pgxpool.Pool {
	s.t.Helper()
	cfg, err := pgxpool.ParseConfig(s.databaseURL)
	require.NoError(s.t, err)
	cfg.ConnConfig.RuntimeParams["application_name"] = testAppName
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(s.t, err)
	s.t.Cleanup(pool.Close)
	return pool
}

// apiClient sends REST requests with an API key.
type apiClient struct {
	base string
	key  string
	http *http.Client
}

// newClient returns a client for s that keeps up to conns connections open, so that concurrent
// callers reuse connections instead of opening one per request.
func newClient(s *server, key string, conns int) *apiClient {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns, transport.MaxIdleConnsPerHost = conns, conns
	return &apiClient{base: s.URL() + "/api/v1", key: key,
		http: &http.Client{Transport: transport, Timeout: time.Minute}}
}

// response is a REST answer.
type response struct {
	Status int
	Body   []byte
}

// Obj decodes the body as an object.
func (r response) Obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body %s", r.Body)
	return m
}

// do sends a request; err is set only when no response arrived.
func (c *apiClient) do(ctx context.Context, method, path string, body any) (response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: resp.StatusCode, Body: data}, nil
}

// must sends a request that has to answer want, and returns the decoded object.
func (c *apiClient) must(t *testing.T, want int, method, path string, body any) map[string]any {
	t.Helper()
	r, err := c.do(context.Background(), method, path, body)
	require.NoError(t, err, "%s %s", method, path)
	require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
	return r.Obj(t)
}

// createEvent creates an event and returns its id.
func (c *apiClient) createEvent(t *testing.T, name string) string {
	t.Helper()
	ev := c.must(t, http.StatusCreated, http.MethodPost, "/events", map[string]any{
		"name": name, "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-06-10T09:00:00.000Z", "endsAt": "2027-06-12T18:00:00.000Z"})
	return ev["id"].(string)
}

// speakerBody is a complete body for POST E/speakers.
func speakerBody(first, email string) map[string]any {
	return map[string]any{"id": nil, "firstName": first, "lastName": "Speaker", "email": email, "title": nil,
		"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"}
}

// sessionBody is a complete body for POST E/sessions.
func sessionBody(title string, speakerIDs ...string) map[string]any {
	return map[string]any{"title": title, "description": nil, "formatId": nil, "speakerIds": speakerIDs}
}

// parallel runs fn(i) for i in [0, n) on workers goroutines and fails t with the first error.
func parallel(t *testing.T, n, workers int, fn func(i int) error) {
	t.Helper()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
}

// mustCreate posts body to path, which has to answer 201, and returns the created id.
func (c *apiClient) mustCreate(path string, body any) (string, error) {
	r, err := c.do(context.Background(), http.MethodPost, path, body)
	if err != nil {
		return "", fmt.Errorf("POST %s: %w", path, err)
	}
	if r.Status != http.StatusCreated {
		return "", fmt.Errorf("POST %s: %d %s", path, r.Status, r.Body)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("POST %s: no id in %s", path, r.Body)
	}
	return out.ID, nil
}

// waitDelivered waits until no email of the database waits for delivery: no email log row queued
// or sending and no deliver_email job that River would still run.
func waitDelivered(t *testing.T, db *pgxpool.Pool, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	for {
		var rows, jobs int
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM email_log WHERE status IN ('queued', 'sending')`).Scan(&rows))
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'deliver_email'
			AND state IN ('available', 'running', 'retryable', 'scheduled', 'pending')`).Scan(&jobs))
		if rows == 0 && jobs == 0 {
			return
		}
		if time.Now().After(deadline) {
			var stuck []string
			list, err := db.Query(ctx, `SELECT e.id || ' ' || e.status || ' ' || coalesce(e.error, '') || ' | job ' ||
				coalesce(j.state::text, 'none') || ' attempt ' || coalesce(j.attempt, 0) || ' ' || coalesce(j.errors::text, '')
				FROM email_log e LEFT JOIN river_job j ON j.kind = 'deliver_email' AND j.args->>'email_id' = e.id
				WHERE e.status IN ('queued', 'sending') LIMIT 10`)
			if err == nil {
				stuck, _ = pgx.CollectRows(list, pgx.RowTo[string])
			}
			t.Fatalf("after %s, %d emails still wait for delivery and %d deliver_email jobs are unfinished:\n%s",
				timeout, rows, jobs, strings.Join(stuck, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// deliveries counts the sink's messages by email log id, read from the Message-ID
// (<emailLogID@domain>, see jobs.SMTPSender), and records each one's recipients.
func deliveries(t *testing.T, sink *mailtest.Sink) (count map[string]int, to map[string][]string) {
	t.Helper()
	count, to = map[string]int{}, map[string][]string{}
	for _, m := range sink.Messages() {
		id, _, ok := strings.Cut(strings.Trim(m.Header.Get("Message-Id"), "<> "), "@")
		require.True(t, ok, "Message-ID %q", m.Header.Get("Message-Id"))
		count[id]++
		to[id] = m.To
	}
	return count, to
}

// duplicates returns how many email log ids arrived more than once, and how many extra copies
// arrived in all.
func duplicates(count map[string]int) (ids, extra int) {
	for _, n := range count {
		if n > 1 {
			ids++
			extra += n - 1
		}
	}
	return ids, extra
}

// percentile returns the p-th percentile (0–100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

// sortedDurations returns ds sorted.
func sortedDurations(ds []time.Duration) []time.Duration {
	out := slices.Clone(ds)
	slices.Sort(out)
	return out
}
