package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/spf13/cobra"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// shutdownGrace is how long SIGTERM waits for in-flight requests and running deliveries, which it
// waits for at once, not one after the other. Deliveries still running then are cancelled (and
// retried by the next process), which cancelGrace bounds; shutdownBound is the sum, the longest a
// stop takes. It stays under the 30 s most supervisors (Kubernetes, systemd) wait before SIGKILL,
// so that a stop ends in order rather than as a crash.
const (
	shutdownGrace = 20 * time.Second
	cancelGrace   = 5 * time.Second
	shutdownBound = shutdownGrace + cancelGrace
)

// serverGCPercent is the garbage collector's target for the server (Go's default is 100). A
// GraphQL response allocates a value for every field it marshals — a large session board is
// hundreds of thousands — and almost none of it outlives the request, so collecting half as often
// cuts the time large responses spend in the collector, for a heap that may grow to three times
// what is live (docs/performance.md has the measurements). GOGC, when set, wins.
const serverGCPercent = 200

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

func serveCommand() *cobra.Command {
	var work bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Apply pending migrations, then serve HTTP and run the job workers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneGC()
			return serve(cmd.Context(), loadConfig(), work)
		},
	}
	cmd.Flags().BoolVar(&work, "workers", true, "run the River job workers in this process")
	return cmd
}

func serve(ctx context.Context, cfg config, work bool) error {
	log := newLogger(os.Stderr)
	if cfg.WebhookErr != nil {
		return cfg.WebhookErr
	}
	if cfg.OperatorAddr != "" {
		if err := rest.CheckOperatorAddr(cfg.OperatorAddr, cfg.OperatorToken); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	db, applied, closeDB, err := openDB(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer closeDB()
	log.Info("migrations applied", "podium", len(applied.Versions), "river", applied.River)

	sender, err := newSender(cfg, log)
	if err != nil {
		return err
	}
	stopTracing, err := setupTracing(ctx, log)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer stopTracing()
	// Committed changes reach this process's subscriptions, whichever process made them.
	feed := operation.NewFeed(db, log, cfg.Live)
	metrics := rest.NewMetrics(db, append(jobs.Collectors(), feedCollectors(feed)...)...)

	// The operations queue jobs through River, and River's AI worker calls the operations back.
	outbox := &email.Outbox{PublicURL: cfg.PublicURL}
	resolver := graph.NewResolver(db, outbox)
	resolver.Ops.Webhooks = cfg.Webhooks.Network
	unsubscribeKey := []byte(cfg.UnsubscribeKey)
	if len(unsubscribeKey) == 0 {
		// Links in emails already sent must keep working, whichever process answers them.
		if unsubscribeKey, err = jobs.ServerKey(viewer.System(ctx, "the server's unsubscribe key"), db.System, "unsubscribe"); err != nil {
			return err
		}
	}
	resolver.Ops.UnsubscribeLinks = &jobs.Unsubscribe{PublicURL: cfg.PublicURL, Key: unsubscribeKey}
	resolver.Ops.EmailHookSecret = cfg.EmailHookSecret
	resolver.Ops.AI = ai.New(ai.Config{APIKey: cfg.AnthropicAPIKey, BaseURL: cfg.AnthropicBaseURL, Model: cfg.AIModel})
	if resolver.Ops.AI == nil {
		log.Info("ANTHROPIC_API_KEY is unset: AI review is not configured")
	}
	if resolver.Ops.Files, err = openFiles(ctx, cfg, db, log); err != nil {
		return err
	}
	jobsCfg := jobs.Config{Work: work, Sender: sender, EmailWorkers: cfg.EmailWorkers,
		Scorer: resolver.Ops, Drafter: resolver.Ops, Informer: resolver.Ops, Chaser: resolver.Ops, Notifier: resolver.Ops,
		Webhooks: cfg.Webhooks, Log: log, Unsubscribe: resolver.Ops.UnsubscribeLinks}
	if resolver.Ops.Files != nil {
		jobsCfg.Files = resolver.Ops.Files.Store
	}
	if work {
		jobsCfg.Rescuer = jobs.NewRescuer(db.Pool, log)
	}
	river, err := jobs.NewClient(db, jobsCfg)
	if err != nil {
		return err
	}
	outbox.Jobs = river
	if resolver.Ops.Files != nil {
		resolver.Ops.Files.Jobs = river
	}
	if work {
		// Workers outlive the signal: on SIGTERM, Stop below lets running jobs finish; a cancelled
		// start context would cancel them instead.
		if err := river.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("start workers: %w", err)
		}
		go jobsCfg.Rescuer.Run(context.WithoutCancel(ctx), river)
	}

	resolver.Ops.Feed = feed
	go feed.Run(context.WithoutCancel(ctx))
	gql := graph.NewHandler(graph.HandlerOptions{DB: db, Resolver: resolver, Log: log})
	handler := rest.NewHandler(rest.Options{
		DB:               db,
		Ops:              resolver.Ops,
		Log:              log,
		QueryCountHeader: cfg.QueryCountHeader,
		RateLimit:        cfg.RateLimit,
		Metrics:          metrics,
		GraphQL:          gql,
	})
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("podium is listening", "url", "http://"+ln.Addr().String(), "graphql", "http://"+ln.Addr().String()+"/graphql")
	fmt.Fprintf(os.Stderr, "\nPodium is listening on http://%s (REST under /api/v1, GraphQL at /graphql).\n"+
		"Create an API key in another terminal:  ./bin/podium keys create --org \"My organization\"\n\n",
		ln.Addr())

	if cfg.PprofAddr != "" {
		servePprof(cfg.PprofAddr, log)
	}
	served := make(chan error, 2)
	if cfg.OperatorAddr != "" {
		ops, err := startOperator(ctx, cfg, db, river, metrics, log)
		if err != nil {
			return err
		}
		go func() { served <- ops.srv.Serve(ops.ln) }()
		defer ops.stop()
	}
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests and jobs")
	start := time.Now()
	// Subscriptions end first, WebSocket clients told to reconnect elsewhere (close code 1012).
	resolver.Ops.Feed.Close()
	gql.CloseSubscriptions()
	err = shutdown(srv, river, work, log)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped", "took_ms", time.Since(start).Milliseconds())
	return nil
}

// shutdown stops serving and working within shutdownBound. The HTTP server stops accepting,
// closes idle keep-alive connections and waits for requests in flight; River stops fetching and
// waits for running jobs — both at once. Past shutdownGrace, connections still open are closed and
// running jobs cancelled. Queued jobs are left in the database for the next process.
func shutdown(srv *http.Server, river interface {
	Stop(context.Context) error
	StopAndCancel(context.Context) error
}, work bool, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	srv.SetKeepAlivesEnabled(false)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if !work {
			return
		}
		if err := river.Stop(ctx); err != nil {
			log.Warn("workers did not stop in time; cancelling running jobs", "err", err)
			cancelCtx, cancel := context.WithTimeout(context.Background(), cancelGrace)
			defer cancel()
			_ = river.StopAndCancel(cancelCtx)
		}
	}()
	err := srv.Shutdown(ctx)
	if err != nil {
		// Requests still running past the grace period are cut off: their clients see the
		// connection close, as after a crash, and retry (with an Idempotency-Key for writes).
		log.Warn("requests did not finish in time; closing their connections", "err", err)
		err = srv.Close()
	}
	<-stopped
	return err
}

// operatorServer is the operator listener (rest.NewOperatorHandler) and its server.
type operatorServer struct {
	srv *http.Server
	ln  net.Listener
}

// startOperator listens on the operator address with River UI, the metrics and health details.
func startOperator(ctx context.Context, cfg config, db *dbx.DB, client *river.Client[pgx.Tx], metrics *rest.Metrics,
	log *slog.Logger) (*operatorServer, error) {
	ui, err := jobs.NewUI(ctx, client, log)
	if err != nil {
		return nil, err
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cfg.OperatorAddr)
	if err != nil {
		return nil, fmt.Errorf("operator listener (PODIUM_OPERATOR_ADDR): %w", err)
	}
	srv := &http.Server{
		Handler: rest.NewOperatorHandler(rest.OperatorOptions{DB: db, Log: log, Metrics: metrics,
			UI: ui, UIPrefix: jobs.UIPrefix, Token: cfg.OperatorToken}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Info("operator listener", "url", "http://"+ln.Addr().String(), "river_ui", "http://"+ln.Addr().String()+jobs.UIPrefix+"/",
		"token", cfg.OperatorToken != "")
	return &operatorServer{srv: srv, ln: ln}, nil
}

// stop ends the operator listener's requests with the process: River UI's pages poll, and no
// operator waits on them the way clients wait on API requests.
func (o *operatorServer) stop() { _ = o.srv.Close() }

// newSender delivers over SMTP_URL, or logs emails when it is unset.
func newSender(cfg config, log *slog.Logger) (jobs.Sender, error) {
	if cfg.SMTPURL == "" {
		log.Info("SMTP_URL is unset: emails are logged and marked sent, not delivered")
		return jobs.LogSender{Log: log}, nil
	}
	return jobs.NewSMTPSender(cfg.SMTPURL, cfg.MailFrom, jobs.SMTPOptions{Connections: cfg.SMTPConnections})
}

// servePprof serves the runtime profiles (net/http/pprof) on their own listener, meant for a
// loopback address: they are for whoever runs the process, not for API clients.
func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		log.Info("serving profiles", "url", "http://"+addr+"/debug/pprof/")
		if err := http.ListenAndServe(addr, mux); err != nil {
			log.Error("profiles server stopped", "err", err)
		}
	}()
}

// openFiles opens the file store: S3 when PODIUM_S3_ENDPOINT is set, else a directory under the
// data directory (docs/files.md). Uploads spooled by a process that stopped are removed.
func openFiles(ctx context.Context, cfg config, db *dbx.DB, log *slog.Logger) (*files.Service, error) {
	if cfg.Files.Dir == "" && cfg.Files.S3.Endpoint == "" {
		// A configuration not read from the environment (tests of serve) has no file store:
		// uploads are refused as not configured.
		log.Info("no file store configured: uploads are refused")
		return nil, nil
	}
	var store files.Store
	var err error
	if cfg.Files.S3.Endpoint != "" {
		store, err = files.NewS3(ctx, cfg.Files.S3)
	} else {
		store, err = files.NewDisk(cfg.Files.Dir)
	}
	if err != nil {
		return nil, err
	}
	_ = os.RemoveAll(cfg.Files.TempDir)
	if err := os.MkdirAll(cfg.Files.TempDir, 0o700); err != nil {
		return nil, fmt.Errorf("files: upload directory: %w", err)
	}
	svc := files.NewService(store, db, cfg.Files.SigningKey)
	svc.MaxBytes, svc.TempDir, svc.PublicURL, svc.Log = cfg.Files.LimitBytes, cfg.Files.TempDir, cfg.PublicURL, log
	if cfg.Files.SigningKey == "" {
		log.Info("PODIUM_FILES_SIGNING_KEY is unset: signed download URLs work only in this process until it stops")
	}
	log.Info("file store", "backend", store.Name(), "upload_limit_mb", cfg.Files.LimitBytes>>20)
	return svc, nil
}

// feedCollectors report the process's subscriptions (docs/subscriptions.md).
func feedCollectors(feed *operation.Feed) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "podium_subscriptions",
			Help: "GraphQL subscriptions held by this process."},
			func() float64 { return float64(feed.Subscribers()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "podium_subscriptions_dropped_total",
			Help: "Subscriptions this process ended because their client fell behind."},
			func() float64 { return float64(feed.Dropped()) }),
	}
}
