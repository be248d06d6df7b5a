package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// The floor of the segment benchmark (WSEG, rest/bench_segments_test.go): PostgreSQL alone
// producing the rows and totalCount of the first page of a segment's contacts, for a filter of a
// search and tag ids, in one statement written apart from Podium's. It normalises the search
// itself, in SQL, and evaluates it the cheapest way PostgreSQL can (a regular expression on the
// raw haystack), so that the benchmark compares Podium with what the page cannot cost less than.
// TestSegmentFloorMatchesREST keeps the two equal byte for byte.

var floorSegmentSQL = strings.NewReplacer("{{ts c.created}}", ts("c.created_at"), "{{ts c.updated}}", ts("c.updated_at"),
	"{{ts t.created}}", ts("t.created_at"), "{{ts t.updated}}", ts("t.updated_at"),
	"{{ts e.created}}", ts("e.created_at"), "{{ts e.updated}}", ts("e.updated_at")).Replace(`
WITH p AS MATERIALIZED (
  SELECT regexp_replace(btrim(regexp_replace(lower($2::text), '[^a-z0-9]+', ' ', 'g')), ' ', '[^a-z0-9]+', 'g') AS pattern
),
names AS (
  SELECT ct.organization_contact_id AS id, string_agg(t.name, ' ' ORDER BY t.name, t.id) AS list
  FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id
  WHERE ct.organization_id = $1 GROUP BY ct.organization_contact_id
),
m AS MATERIALIZED (
  SELECT c.id, c.last_name, c.first_name FROM organization_contacts c LEFT JOIN names n ON n.id = c.id, p
  WHERE c.organization_id = $1
    AND lower(c.first_name || ' ' || c.last_name || ' ' || c.email || ' ' || coalesce(c.company, '') || ' ' ||
        coalesce(c.title, '') || ' ' || coalesce(n.list, '')) ~ p.pattern
    AND EXISTS (SELECT 1 FROM organization_contact_tags ct WHERE ct.organization_contact_id = c.id AND ct.tag_id = ANY($3))
)
SELECT '{"rows":' || COALESCE((SELECT json_agg(json_build_object(
  'contact', json_build_object('id', c.id, 'createdAt', {{ts c.created}}, 'updatedAt', {{ts c.updated}},
    'organizationId', c.organization_id, 'firstName', c.first_name, 'lastName', c.last_name, 'email', c.email,
    'title', c.title, 'company', c.company, 'bio', c.bio, 'linkedinUrl', c.linkedin_url, 'twitterUrl', c.twitter_url,
    'facebookUrl', c.facebook_url, 'websiteUrl', c.website_url, 'headshotUrl', c.headshot_url, 'custom', c.custom),
  'tags', COALESCE((SELECT json_agg(json_build_object('id', t.id, 'createdAt', {{ts t.created}}, 'updatedAt', {{ts t.updated}},
      'organizationId', t.organization_id, 'name', t.name) ORDER BY t.name, t.id)
    FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id WHERE ct.organization_contact_id = c.id), '[]'),
  'events', COALESCE((SELECT json_agg(json_build_object('id', e.id, 'createdAt', {{ts e.created}}, 'updatedAt', {{ts e.updated}},
      'organizationContactId', e.organization_contact_id, 'contactId', e.contact_id, 'eventId', e.event_id,
      'role', e.role, 'status', e.status) ORDER BY e.created_at, e.id)
    FROM organization_contact_events e WHERE e.organization_contact_id = c.id), '[]')
  ) ORDER BY pg.last_name, pg.first_name, pg.id)
  FROM (SELECT * FROM m ORDER BY last_name, first_name, id LIMIT $4) pg JOIN organization_contacts c ON c.id = pg.id), '[]')::text
  || ',"totalCount":' || (SELECT count(*) FROM m) || '}'`)

// floorSegmentPage is the floor: the first limit rows and the total of the contacts of org that
// search and any of tagIDs select.
func floorSegmentPage(ctx context.Context, pool *pgxpool.Pool, org, search string, tagIDs []string, limit int) ([]byte, error) {
	var raw []byte
	if err := pool.QueryRow(ctx, floorSegmentSQL, org, search, tagIDs, limit).Scan(&raw); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err := json.Compact(&out, raw)
	return out.Bytes(), err
}

// withoutCursor is a segment page as REST answers it, less its nextCursor (a cursor is Podium's).
func withoutCursor(t *testing.T, raw string) []byte {
	t.Helper()
	var page struct {
		Rows       json.RawMessage `json:"rows"`
		TotalCount json.RawMessage `json:"totalCount"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &page))
	return []byte(`{"rows":` + string(page.Rows) + `,"totalCount":` + string(page.TotalCount) + `}`)
}

func TestSegmentFloorMatchesREST(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Linked"), "id")
	speaker := b.speaker("/api/v1/events/"+ev, "Ada", "Lovelace", "ada@example.test")
	var ids []string
	for i := range 30 {
		title := "Engineer"
		if i%3 == 0 {
			title = "Chief  engineer!"
		}
		ids = append(ids, b.bookContact(b.acmeOrg, "Person", "P"+itoa(i%7), "p"+itoa(i)+"@example.test", "Acme \"Labs\" <b>", title))
	}
	vip, repeat := b.bookTag(b.acmeOrg, "VIP", ids[:20]...), b.bookTag(b.acmeOrg, "Repeat", ids[10:]...)
	b.bookTag(b.acmeOrg, "Other", ids...)
	_, err := b.db.Ent.OrganizationContactEvent.Create().SetOrganizationID(b.acmeOrg).SetOrganizationContactID(ids[0]).
		SetContactID(speaker).SetEventID(ev).SetRole("speaker").Save(b.sys())
	require.NoError(t, err)
	seg := str(b.saveSegment(b.acme, "Engineers", map[string]any{"search": "ENGINEER", "tagIds": []any{vip, repeat}}), "id")

	want := withoutCursor(t, b.must(http.StatusOK, http.MethodGet, "/api/v1/segments/"+seg+"/contacts?limit=25", b.acme, nil).Raw)
	got, err := floorSegmentPage(b.sys(), b.db.System, b.acmeOrg, "ENGINEER", []string{vip, repeat}, 25)
	require.NoError(t, err)
	require.Greater(t, len(want), 5000, "too little data to compare")
	require.Contains(t, string(want), `"events":[{`)
	require.Equal(t, string(want), string(got))
}
