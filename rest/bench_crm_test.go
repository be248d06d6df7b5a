//go:build bench

package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// crmContacts is how many contacts W10 seeds: an organization's whole contact book, each contact
// with two tags and every seventh linked to an event.
const crmContacts = 50_000

// w10Contacts is W10: GET /contacts, the whole directory of 50,000 contacts with their tags and
// event links, alternating with its floor (floorContacts: the same bytes from PostgreSQL alone).
// The target is a p50 within 2× of the floor's, in a fixed number of statements.
func w10Contacts(t *testing.T, ctx context.Context, client *http.Client, srv server, pool *pgxpool.Pool, key, eventID string, rounds int) benchResult {
	t.Helper()
	var org string
	require.NoError(t, pool.QueryRow(ctx, `SELECT organization_id FROM events WHERE id = $1`, eventID).Scan(&org))
	start := time.Now()
	require.NoError(t, seedContacts(ctx, pool, org, eventID, crmContacts))
	t.Logf("W10: seeded %d contacts in %s", crmContacts, time.Since(start).Round(time.Millisecond))
	_, err := pool.Exec(ctx, `ANALYZE organization_contacts, organization_contact_tags, organization_tags, organization_contact_events`)
	require.NoError(t, err)
	res := interleaved(t, "W10", client, srv, request{method: http.MethodGet, url: srv.url + "/api/v1/contacts", key: key}, nil, rounds,
		func() error { _, err := floorContacts(ctx, pool, org); return err })
	return res
}
