package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
)

// TestOrganizationConnectionShare: an organization whose work holds its share of the pool (half
// of it by default: here slow transactions, as a burst of slow requests would) leaves the other
// half to the others — another organization's REST and GraphQL reads and writes are answered at
// once — and its own next request waits for its share, then is answered 503 unavailable with
// Retry-After (GraphQL: extensions.code unavailable), as when the whole pool is busy. Once its work
// ends it is served again.
func TestOrganizationConnectionShare(t *testing.T) {
	t.Parallel()
	const acquire = 500 * time.Millisecond
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: acquire})
	b := newBundle(t, bundleOpts{DB: db})
	acmeEvent := b.createEvent(b.acme, "Acme Conf")["id"].(string)
	globexEvent := b.createEvent(b.globex, "Globex Conf")["id"].(string)

	var held []*dbx.Tx
	for range 2 {
		tx, err := db.Begin(viewer.WithOrganization(context.Background(), b.acmeOrg))
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback() })
		held = append(held, tx)
	}

	start := time.Now()
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+globexEvent, b.globex, nil)
	b.createEvent(b.globex, "Globex Summit")
	b.gqlOK(b.globex, `{ events(first: 5) { totalCount } }`, nil)
	require.Less(t, time.Since(start), acquire, "the other organization waited for a connection")

	start = time.Now()
	r := b.do(http.MethodGet, "/api/v1/events/"+acmeEvent, b.acme, nil)
	require.GreaterOrEqual(t, time.Since(start), acquire)
	b.requireError(r, http.StatusServiceUnavailable, "unavailable")
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Equal(t, []string{"unavailable"}, b.gql(b.acme, `{ events(first: 5) { totalCount } }`, nil).Codes())

	for _, tx := range held {
		require.NoError(t, tx.Rollback())
	}
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+acmeEvent, b.acme, nil)
}
