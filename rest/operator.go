package rest

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/apperr"
)

// OperatorOptions configure NewOperatorHandler.
type OperatorOptions struct {
	DB  *dbx.DB
	Log *slog.Logger
	// Metrics are served at /metrics: the same set the public handler counts into.
	Metrics *Metrics
	// UI is River UI, served under UIPrefix; nil serves none.
	UI http.Handler
	// UIPrefix is where UI expects to be mounted (jobs.UIPrefix).
	UIPrefix string
	// Token is the operator credential (PODIUM_OPERATOR_TOKEN): every request must carry it, as a
	// bearer token or as the password of HTTP Basic authentication. Empty admits requests whose
	// Host is a loopback name, which only a listener on a loopback address should be given
	// (CheckOperatorAddr).
	Token string
}

// NewOperatorHandler returns the operator listener's handler: River UI, Prometheus metrics and
// health with details. None of it is for tenants: an organization's API key or a person's session
// is no credential here, and the public handler answers 404 for these paths. River UI shows and
// changes the jobs of every organization, and the metrics count across them.
//
// Writes from another site are refused (http.CrossOriginProtection): a page an operator visits
// cannot make their browser, which holds the Basic credentials or reaches loopback, pause a
// queue or delete jobs. Without a token, a request must name a loopback host, so that a site
// whose name resolves to 127.0.0.1 (DNS rebinding) is refused too.
func NewOperatorHandler(opts OperatorOptions) http.Handler {
	a := &API{db: opts.DB, log: opts.Log, metrics: opts.Metrics}
	r := chi.NewRouter()
	r.Use(a.logRequests, compress, a.recoverPanics, a.operatorOnly(opts.Token), a.sameSiteWrites)
	r.NotFound(a.notFound)
	r.Get("/healthz", a.healthDetails)
	r.Get("/readyz", a.ready)
	r.Method(http.MethodGet, "/metrics", a.metrics.Handler())
	if opts.UI != nil {
		r.Handle(opts.UIPrefix, opts.UI)
		r.Handle(opts.UIPrefix+"/*", opts.UI)
	}
	return r
}

// operatorOnly admits the operator: the token as a bearer token or a Basic password (any user
// name), or, without a token, a request to a loopback host. A refusal asks the browser for the
// password.
func (a *API) operatorOnly(token string) func(http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if token == "" {
				if !loopbackHost(r.Host) {
					a.writeError(w, r, apperr.Forbidden("The operator listener answers only requests to a loopback host"))
					return
				}
				next.ServeHTTP(w, r)
				return
			}
			given, ok := "", false
			if _, password, basic := r.BasicAuth(); basic {
				given, ok = password, true
			} else if bearer, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found {
				given, ok = bearer, true
			}
			// Hashes of equal length, so that the comparison's time says nothing of the token's.
			got := sha256.Sum256([]byte(given))
			if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Basic realm="Podium operator: use the operator token as the password", charset="UTF-8"`)
				code, msg := apperr.CodeInvalidAPIKey, "The operator token is not valid"
				if !ok {
					code, msg = apperr.CodeMissingAPIKey, "The operator listener needs the operator token"
				}
				a.writeError(w, r, apperr.New(http.StatusUnauthorized, code, msg))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// loopbackHost reports whether host (a Host header, with or without a port) names this machine
// by loopback: localhost or a loopback IP.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// operatorOrigin refuses writes from another site: Sec-Fetch-Site, else Origin against Host.
var operatorOrigin = http.NewCrossOriginProtection()

// sameSiteWrites refuses a cross-site write before it reaches River UI, which takes JSON bodies
// sent as text/plain (a form or fetch that needs no preflight).
func (a *API) sameSiteWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := operatorOrigin.Check(r); err != nil {
			a.writeError(w, r, apperr.Forbidden("A write from another site is refused"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// started is when the process began serving, for the uptime of health details.
var started = time.Now()

// healthDetails is the operators' health check: the database's answer and how long it took, the
// connection pool, and the process. It answers 503 when PostgreSQL does not answer within 2 s.
func (a *API) healthDetails(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	begin := time.Now()
	err := a.db.Pool.Ping(ctx)
	took := time.Since(begin)
	st := a.db.Pool.Stat()
	database := map[string]any{"status": "ok", "pingMs": float64(took.Microseconds()) / 1000}
	status, code := "ok", http.StatusOK
	if err != nil {
		database = map[string]any{"status": "unavailable", "error": err.Error()}
		status, code = "unavailable", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{
		"status":   status,
		"database": database,
		"pool": map[string]any{"max": st.MaxConns(), "total": st.TotalConns(), "idle": st.IdleConns(),
			"acquired": st.AcquiredConns()},
		"process": map[string]any{"goVersion": runtime.Version(), "goroutines": runtime.NumGoroutine(),
			"uptimeSeconds": int64(time.Since(started).Seconds())},
	})
}

// CheckOperatorAddr refuses an operator listener reachable from other machines without a token:
// River UI and the metrics would be open to the network.
func CheckOperatorAddr(addr, token string) error {
	if token != "" {
		if len(token) < 16 {
			return errors.New("PODIUM_OPERATOR_TOKEN is shorter than 16 characters")
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("PODIUM_OPERATOR_ADDR %s is not host:port", addr)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("PODIUM_OPERATOR_ADDR %s is not a loopback address: set PODIUM_OPERATOR_TOKEN", addr)
	}
	return nil
}
