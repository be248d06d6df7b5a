package dbx

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrAcquireTimeout is returned when no pooled connection came free within Options.AcquireTimeout:
// every connection is busy (or PostgreSQL is not accepting new ones), and waiting longer would only
// pile requests up behind the slow ones.
var ErrAcquireTimeout = errors.New("dbx: no database connection came free in time")

// Unavailable reports whether err means PostgreSQL could not be reached or went away: a refused or
// timed-out connection, a connection closed under a statement, a server shutting down, starting up
// or out of connections, a statement cancelled by statement_timeout, or no pooled connection
// within the acquire timeout. These are not the request's fault and pass once the database is back,
// so callers answer them as "retry later" (apperr.Unavailable) instead of as an internal error.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrAcquireTimeout) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"53300", // too_many_connections
			"57014": // query_canceled: statement_timeout (a cancelled request's own context is caught before)
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection_exception and its subclasses
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The caller's own context ended (a client gone, a request's budget spent): its reason,
		// not the database's. A connect timeout is a ConnectError, caught above.
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "conn closed")
}

// acquireConnector bounds how long database/sql waits for a connection from pgxpool. pgxpool waits
// as long as the caller's context allows; a request would then wait behind every slow statement
// ahead of it, and during an outage behind every failing connection attempt.
type acquireConnector struct {
	driver.Connector
	timeout time.Duration
}

// Connect takes a connection from the pool within the timeout.
func (c acquireConnector) Connect(ctx context.Context) (driver.Conn, error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.timeout, ErrAcquireTimeout)
	defer cancel()
	conn, err := c.Connector.Connect(actx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), ErrAcquireTimeout) {
		// Not wrapping err: it wraps context.DeadlineExceeded, which callers read as the end of
		// the request's own time.
		return nil, fmt.Errorf("%w after %s (%v)", ErrAcquireTimeout, c.timeout, err) //nolint:errorlint // see above: err must not be wrapped
	}
	return conn, err
}
