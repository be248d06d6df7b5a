//go:build bench

package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// benchContacts is how many contacts WSEG seeds, each with two of benchTags tags.
const (
	benchContacts = 50_000
	benchTags     = 20
)

// segmentSearch and segmentTags are WSEG's filter: a search that must scan every contact's
// haystack, tag names included, and three of the twenty tags.
const segmentSearch = "engineer"

var segmentTags = []string{"otag_bench1", "otag_bench2", "otag_bench3"}

// benchSegments is WSEG: the first page (100 rows) of a segment's contacts over 50,000 contacts
// with two tags each, alternating with its floor (floorSegmentPage: PostgreSQL alone producing the
// same rows and total). The contacts are seeded by SQL into the key's organization.
func benchSegments(t *testing.T, ctx context.Context, client *http.Client, srv server, pool *pgxpool.Pool, key string, rounds int) benchResult {
	t.Helper()
	// The segment, saved over the API, says which organization the key is.
	_, res, raw, err := request{method: http.MethodPost, url: srv.url + "/api/v1/segments", key: key,
		body: mustJSON(map[string]any{"name": "Bench engineers", "filter": map[string]any{"search": segmentSearch, "tagIds": segmentTags}})}.fetch(client)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, res.StatusCode, string(raw))
	var saved map[string]any
	require.NoError(t, json.Unmarshal(raw, &saved))
	org, segment := saved["organizationId"].(string), saved["id"].(string)
	start := time.Now()
	seedSegmentBench(t, ctx, pool, org)
	t.Logf("WSEG: seeded %d contacts with %d tags each in %s", benchContacts, 2, time.Since(start).Round(time.Millisecond))
	page := request{method: http.MethodGet, url: srv.url + "/api/v1/segments/" + segment + "/contacts?limit=100", key: key}
	return interleaved(t, "WSEG", client, srv, page, nil, rounds, func() error {
		_, err := floorSegmentPage(ctx, pool, org, segmentSearch, segmentTags, 100)
		return err
	})
}

// seedSegmentBench inserts the contacts, tags and tag links of WSEG in three set-based statements.
func seedSegmentBench(t *testing.T, ctx context.Context, pool *pgxpool.Pool, org string) {
	t.Helper()
	for _, stmt := range []string{`
INSERT INTO organization_tags (id, created_at, updated_at, organization_id, name)
SELECT 'otag_bench' || i, now(), now(), $1, 'Bench tag ' || i FROM n, generate_series(1, n.tags) i`, `
INSERT INTO organization_contacts (id, created_at, updated_at, organization_id, first_name, last_name, email, title, company, custom)
SELECT 'crm_bench' || lpad(i::text, 6, '0'), now(), now(), $1,
  (ARRAY['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Ken', 'Katherine'])[1 + i % 7], 'Person ' || (i % 4999),
  'person' || i || '@bench.test', (ARRAY['Engineer', 'Scientist', 'Director', 'Chief Engineer', 'Designer'])[1 + i % 5],
  'Company ' || (i % 700) || ', Inc.', '{}'
FROM n, generate_series(1, n.contacts) i`, `
INSERT INTO organization_contact_tags (id, created_at, updated_at, organization_id, organization_contact_id, tag_id)
SELECT 'octg_bench' || i || '_' || k, now(), now(), $1, 'crm_bench' || lpad(i::text, 6, '0'), 'otag_bench' || (1 + (i * 7 + k * 3) % n.tags)
FROM n, generate_series(1, n.contacts) i, generate_series(0, 1) k`} {
		// Each statement takes all three parameters, typed once in n.
		_, err := pool.Exec(ctx, "WITH n AS (SELECT $2::int AS contacts, $3::int AS tags)"+stmt, org, benchContacts, benchTags)
		require.NoError(t, err)
	}
	_, err := pool.Exec(ctx, `ANALYZE organization_contacts, organization_tags, organization_contact_tags`)
	require.NoError(t, err)
}
