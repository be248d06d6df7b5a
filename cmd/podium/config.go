package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/migrate/migrations"
	"github.com/podium/podium/ent/pgcluster"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// config is Podium's configuration, read from the environment (docs/rest-api.md §5).
type config struct {
	DatabaseURL      string // DATABASE_URL; empty starts the private cluster under DataDir
	DataDir          string // PODIUM_DATA_DIR; where the private cluster lives, ./.podium by default
	Addr             string // PODIUM_ADDR
	PublicURL        string // PUBLIC_URL
	SMTPURL          string // SMTP_URL
	MailFrom         string // MAIL_FROM
	AnthropicAPIKey  string // ANTHROPIC_API_KEY
	AnthropicBaseURL string // ANTHROPIC_BASE_URL
	AIModel          string // AI_MODEL
	EmailWorkers     int    // PODIUM_EMAIL_WORKERS
	SMTPConnections  int    // PODIUM_SMTP_CONNECTIONS
	// UnsubscribeKey (PODIUM_UNSUBSCRIBE_KEY) signs the unsubscribe links of campaign emails
	// (docs/deliverability.md); unset, a random key works until the process stops.
	UnsubscribeKey string
	// EmailHookSecret (PODIUM_EMAIL_HOOK_SECRET) is the bearer secret of the mail provider's
	// bounce and complaint reports; unset turns /hooks/email-events and /hooks/email-dsn off.
	EmailHookSecret string
	// QueryCountHeader (PODIUM_QUERY_COUNT_HEADER) adds Podium-Query-Count to every response.
	QueryCountHeader bool
	// PprofAddr (PODIUM_PPROF_ADDR) serves net/http/pprof on its own listener when set.
	PprofAddr string
	// OperatorAddr (PODIUM_OPERATOR_ADDR) is the operator listener's address — River UI, /metrics
	// and health details (rest.NewOperatorHandler); "off" or empty serves none. OperatorToken
	// (PODIUM_OPERATOR_TOKEN) is its credential, required unless the address is loopback.
	OperatorAddr, OperatorToken string
	// DBMaxConns (PODIUM_DB_MAX_CONNS) caps the connection pool.
	DBMaxConns int
	// DBOrgConns (PODIUM_DB_ORG_CONNS) and DBPersonConns (PODIUM_DB_PERSON_CONNS) bound the pooled
	// connections one organization, and one signed-in person, hold at once, so that one
	// organization's burst leaves the rest of the pool to the others (dbx.Options.
	// PerOrganizationConns): 0 (unset) is half the pool and 4; "off" or a negative number turns
	// one off.
	DBOrgConns, DBPersonConns int
	// DBStatementTimeout (PODIUM_DB_STATEMENT_TIMEOUT) is PostgreSQL's statement_timeout for
	// Podium's sessions; DBAcquireTimeout (PODIUM_DB_ACQUIRE_TIMEOUT) bounds the wait for a pooled
	// connection. Both are Go durations ("30s"); "0" turns one off.
	DBStatementTimeout, DBAcquireTimeout time.Duration
	// RateLimit (PODIUM_RATE_LIMIT requests per second per API key, PODIUM_RATE_BURST at once);
	// a rate of 0 turns limiting off. PODIUM_RATE_LIMIT_LOCAL keeps the buckets in the process
	// instead of PostgreSQL, for a single instance.
	RateLimit rest.RateLimit
	// Webhooks configures webhook delivery: PODIUM_WEBHOOK_ALLOW_HTTP, PODIUM_WEBHOOK_ALLOW_NETWORKS,
	// PODIUM_WEBHOOK_WORKERS, PODIUM_WEBHOOK_TIMEOUT, PODIUM_WEBHOOK_BACKOFF, PODIUM_WEBHOOK_RETENTION
	// (docs/webhooks.md).
	Webhooks jobs.WebhookConfig
	// WebhookErr is why a webhook variable was refused; serve reports it.
	WebhookErr error
	// Live bounds subscriptions per process (docs/subscriptions.md): PODIUM_LIVE_PER_CONNECTION,
	// PODIUM_LIVE_PER_CALLER, PODIUM_LIVE_PER_ORGANIZATION and PODIUM_LIVE_BUFFER; unset or not
	// a positive number leaves operation.DefaultFeedLimits' value.
	Live operation.FeedLimits
	// Files configures the file store (docs/files.md): PODIUM_FILES_DIR (DataDir/files),
	// PODIUM_UPLOAD_LIMIT_MB (50), PODIUM_UPLOAD_TMP_DIR (DataDir/tmp), PODIUM_FILES_SIGNING_KEY,
	// and PODIUM_S3_ENDPOINT, _BUCKET, _REGION, _ACCESS_KEY, _SECRET_KEY, _PATH_STYLE for S3.
	Files filesConfig
}

// filesConfig is the file store's configuration.
type filesConfig struct {
	Dir, TempDir, SigningKey string
	LimitBytes               int64
	S3                       files.S3Config
}

func loadFilesConfig(dataDir string) filesConfig {
	c := filesConfig{
		Dir:        env("PODIUM_FILES_DIR", filepath.Join(dataDir, "files")),
		TempDir:    env("PODIUM_UPLOAD_TMP_DIR", filepath.Join(dataDir, "tmp")),
		SigningKey: os.Getenv("PODIUM_FILES_SIGNING_KEY"),
		LimitBytes: files.DefaultMaxBytes,
		S3: files.S3Config{Endpoint: os.Getenv("PODIUM_S3_ENDPOINT"), Bucket: os.Getenv("PODIUM_S3_BUCKET"),
			Region: os.Getenv("PODIUM_S3_REGION"), AccessKey: os.Getenv("PODIUM_S3_ACCESS_KEY"),
			SecretKey: os.Getenv("PODIUM_S3_SECRET_KEY"), PathStyle: os.Getenv("PODIUM_S3_PATH_STYLE") != ""},
	}
	if mb, err := strconv.ParseInt(os.Getenv("PODIUM_UPLOAD_LIMIT_MB"), 10, 64); err == nil && mb > 0 {
		c.LimitBytes = mb << 20
	}
	return c
}

// defaultOperatorAddr keeps the operator listener on the machine itself: reaching it from
// elsewhere is a choice, made with PODIUM_OPERATOR_TOKEN (an SSH tunnel needs neither).
const defaultOperatorAddr = "127.0.0.1:9090"

// defaultDBMaxConns sizes the pool for a server: requests wait on PostgreSQL far more than they
// compute, so more connections than cores keep both busy (pgx's default is max(4, cores)).
const defaultDBMaxConns = 20

func loadConfig() config {
	c := config{
		DatabaseURL:      os.Getenv("DATABASE_URL"),
		DataDir:          env("PODIUM_DATA_DIR", ".podium"),
		Addr:             env("PODIUM_ADDR", "127.0.0.1:8080"),
		SMTPURL:          os.Getenv("SMTP_URL"),
		MailFrom:         env("MAIL_FROM", "Podium <no-reply@localhost>"),
		AnthropicAPIKey:  os.Getenv("ANTHROPIC_API_KEY"),
		AnthropicBaseURL: env("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
		AIModel:          env("AI_MODEL", "claude-sonnet-4-5"),
	}
	c.EmailWorkers, _ = strconv.Atoi(os.Getenv("PODIUM_EMAIL_WORKERS"))
	c.SMTPConnections, _ = strconv.Atoi(os.Getenv("PODIUM_SMTP_CONNECTIONS"))
	c.UnsubscribeKey = os.Getenv("PODIUM_UNSUBSCRIBE_KEY")
	c.EmailHookSecret = os.Getenv("PODIUM_EMAIL_HOOK_SECRET")
	c.QueryCountHeader = os.Getenv("PODIUM_QUERY_COUNT_HEADER") != ""
	c.PprofAddr = os.Getenv("PODIUM_PPROF_ADDR")
	c.OperatorAddr = env("PODIUM_OPERATOR_ADDR", defaultOperatorAddr)
	if c.OperatorAddr == "off" {
		c.OperatorAddr = ""
	}
	c.OperatorToken = os.Getenv("PODIUM_OPERATOR_TOKEN")
	c.RateLimit.PerSecond = 100
	if v, err := strconv.ParseFloat(os.Getenv("PODIUM_RATE_LIMIT"), 64); err == nil {
		c.RateLimit.PerSecond = v
	}
	c.RateLimit.Burst, _ = strconv.Atoi(env("PODIUM_RATE_BURST", "200"))
	c.RateLimit.Local = os.Getenv("PODIUM_RATE_LIMIT_LOCAL") != ""
	c.Live = operation.DefaultFeedLimits
	for name, limit := range map[string]*int{"PODIUM_LIVE_PER_CONNECTION": &c.Live.PerConnection,
		"PODIUM_LIVE_PER_CALLER": &c.Live.PerCaller, "PODIUM_LIVE_PER_ORGANIZATION": &c.Live.PerOrganization,
		"PODIUM_LIVE_BUFFER": &c.Live.Buffer} {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
			*limit = n
		}
	}
	c.DBMaxConns, _ = strconv.Atoi(os.Getenv("PODIUM_DB_MAX_CONNS"))
	if c.DBMaxConns <= 0 {
		c.DBMaxConns = defaultDBMaxConns
	}
	c.DBOrgConns, c.DBPersonConns = connBound("PODIUM_DB_ORG_CONNS"), connBound("PODIUM_DB_PERSON_CONNS")
	c.DBStatementTimeout = duration("PODIUM_DB_STATEMENT_TIMEOUT", defaultStatementTimeout)
	c.DBAcquireTimeout = duration("PODIUM_DB_ACQUIRE_TIMEOUT", defaultAcquireTimeout)
	c.PublicURL = strings.TrimRight(env("PUBLIC_URL", "http://"+c.Addr), "/")
	c.Webhooks, c.WebhookErr = webhookConfig()
	c.Files = loadFilesConfig(c.DataDir)
	return c
}

// webhookConfig reads the webhook variables. Each defaults to the safe choice: https only, public
// addresses only.
func webhookConfig() (jobs.WebhookConfig, error) {
	var w jobs.WebhookConfig
	var err error
	w.Network.AllowHTTP = os.Getenv("PODIUM_WEBHOOK_ALLOW_HTTP") != ""
	if w.Network.Allow, err = jobs.ParseNetworks(os.Getenv("PODIUM_WEBHOOK_ALLOW_NETWORKS")); err != nil {
		return w, fmt.Errorf("PODIUM_WEBHOOK_ALLOW_NETWORKS: %w", err)
	}
	w.Workers, _ = strconv.Atoi(os.Getenv("PODIUM_WEBHOOK_WORKERS"))
	if v := os.Getenv("PODIUM_WEBHOOK_TIMEOUT"); v != "" {
		if w.Timeout, err = time.ParseDuration(v); err != nil {
			return w, fmt.Errorf("PODIUM_WEBHOOK_TIMEOUT: %w", err)
		}
	}
	if v := os.Getenv("PODIUM_WEBHOOK_RETENTION"); v != "" {
		if w.Retention, err = time.ParseDuration(v); err != nil || w.Retention < 2*24*time.Hour {
			return w, fmt.Errorf("PODIUM_WEBHOOK_RETENTION: %q is not a duration of at least 48h", v)
		}
	}
	// PODIUM_WEBHOOK_BACKOFF scales the retry schedule: the first retry waits this long and each
	// later one three times the one before, up to a day. Tests shorten it to compress a day of
	// retries into minutes.
	if v := os.Getenv("PODIUM_WEBHOOK_BACKOFF"); v != "" {
		base, err := time.ParseDuration(v)
		if err != nil || base <= 0 {
			return w, fmt.Errorf("PODIUM_WEBHOOK_BACKOFF: %q is not a positive duration", v)
		}
		w.Backoff = func(attempt int) time.Duration {
			return time.Duration(float64(jobs.WebhookBackoff(attempt)) * float64(base) / float64(15*time.Second))
		}
	}
	return w, nil
}

// defaultStatementTimeout is far above any statement Podium sends (the largest reads take tens of
// milliseconds on the benchmark's data) and far below the 60 s in which the server must have
// written its response: a statement that slow is stuck, and holds a connection others wait for.
const defaultStatementTimeout = 30 * time.Second

// defaultAcquireTimeout bounds a request's wait for a connection: under overload, waits of a
// second or two are normal queueing; ten seconds means the pool is held by stuck work, and an
// answer of 503 with Retry-After serves the client better than a longer wait.
const defaultAcquireTimeout = 10 * time.Second

// connBound reads a bound on connections: a count, 0 (unset, or a value that does not parse) for
// dbx's default, or -1 for "off" and any negative number.
func connBound(name string) int {
	v := strings.TrimSpace(os.Getenv(name))
	if strings.EqualFold(v, "off") {
		return -1
	}
	n, _ := strconv.Atoi(v)
	return max(n, -1)
}

// duration reads a Go duration ("30s") from the environment; unset or unparsable takes fallback.
func duration(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d >= 0 {
		return d
	}
	return fallback
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func newLogger(w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("PODIUM_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// openDB connects to DATABASE_URL, or, when it is unset, to the private cluster under DataDir,
// starting it if it is not running. With migrate, pending migrations are applied first, on
// connections of the login role, which owns the schema; the returned DB acts as the application
// role (see package dbx), bound by row-level security. The returned stop function closes the DB
// and stops a cluster this call started.
func openDB(ctx context.Context, c config, log *slog.Logger, migrate bool) (*dbx.DB, migrations.Applied, func(), error) {
	var applied migrations.Applied
	url, stop := c.DatabaseURL, func() {}
	if url == "" {
		dir, err := filepath.Abs(c.DataDir)
		if err != nil {
			return nil, applied, nil, err
		}
		cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Database: "podium"})
		if err != nil {
			return nil, applied, nil, fmt.Errorf("DATABASE_URL is unset and the private PostgreSQL cluster under %s "+
				"did not start: %w", dir, err)
		}
		url = cluster.URL("podium")
		log.Info("using the private PostgreSQL cluster", "dir", dir, "socket", cluster.SocketDir())
		stop = func() { _ = cluster.Stop(context.Background()) }
	}
	if migrate {
		var err error
		if applied, err = applyMigrations(ctx, url); err != nil {
			stop()
			return nil, applied, nil, err
		}
	}
	db, err := dbx.Open(ctx, url, dbx.Options{MaxConns: int32(c.DBMaxConns),
		PerOrganizationConns: int32(c.DBOrgConns), PerPersonConns: int32(c.DBPersonConns),
		StatementTimeout: c.DBStatementTimeout, AcquireTimeout: c.DBAcquireTimeout})
	if err != nil {
		stop()
		return nil, applied, nil, err
	}
	return db, applied, func() { db.Close(); stop() }, nil
}

// applyMigrations applies pending migrations to the database at url, as its owner.
func applyMigrations(ctx context.Context, url string) (migrations.Applied, error) {
	owner, err := dbx.Open(ctx, url, dbx.Options{Owner: true, MaxConns: 2})
	if err != nil {
		return migrations.Applied{}, err
	}
	defer owner.Close()
	return migrations.Apply(viewer.System(ctx, "migrations: schema changes and backfills span organizations"), owner.Pool)
}
