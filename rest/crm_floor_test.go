package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
)

// The floor of the contact directory benchmark (W10, bench_crm_test.go): PostgreSQL alone
// producing the bytes GET /contacts answers for an organization, one statement that aggregates
// each contact's tags and event links with correlated subqueries. TestCrmFloorMatchesREST keeps it
// equal to Podium's answer byte for byte.

var floorContactsSQL = strings.NewReplacer("{{created}}", ts("c.created_at"), "{{updated}}", ts("c.updated_at"),
	"{{tcreated}}", ts("t.created_at"), "{{tupdated}}", ts("t.updated_at"),
	"{{ecreated}}", ts("e.created_at"), "{{eupdated}}", ts("e.updated_at")).Replace(`
SELECT COALESCE(json_agg(json_build_object(
  'contact', json_build_object('id', c.id, 'createdAt', {{created}}, 'updatedAt', {{updated}},
    'organizationId', c.organization_id, 'firstName', c.first_name, 'lastName', c.last_name, 'email', c.email,
    'title', c.title, 'company', c.company, 'bio', c.bio, 'linkedinUrl', c.linkedin_url,
    'twitterUrl', c.twitter_url, 'facebookUrl', c.facebook_url, 'websiteUrl', c.website_url,
    'headshotUrl', c.headshot_url, 'custom', c.custom),
  'tags', COALESCE((SELECT json_agg(json_build_object('id', t.id, 'createdAt', {{tcreated}}, 'updatedAt', {{tupdated}},
      'organizationId', t.organization_id, 'name', t.name) ORDER BY t.name, t.id)
    FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id
    WHERE ct.organization_contact_id = c.id), '[]'::json),
  'events', COALESCE((SELECT json_agg(json_build_object('id', e.id, 'createdAt', {{ecreated}}, 'updatedAt', {{eupdated}},
      'organizationContactId', e.organization_contact_id, 'contactId', e.contact_id, 'eventId', e.event_id,
      'role', e.role, 'status', e.status) ORDER BY e.created_at, e.id)
    FROM organization_contact_events e WHERE e.organization_contact_id = c.id), '[]'::json)
) ORDER BY c.last_name, c.first_name, c.id)::text, '[]')
FROM organization_contacts c
WHERE c.organization_id = $1`)

// floorContacts is the directory of org as GET /contacts answers it, made by PostgreSQL alone.
func floorContacts(ctx context.Context, pool *pgxpool.Pool, org string) ([]byte, error) {
	var raw []byte
	if err := pool.QueryRow(ctx, floorContactsSQL, org).Scan(&raw); err != nil {
		return nil, fmt.Errorf("floor contacts: %w", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// seedContacts adds n contacts to org, in one transaction of a few set-based statements: each
// with two of 20 tags, every tenth with custom data and a company, every seventh linked to
// eventID (when given) through an event contact.
func seedContacts(ctx context.Context, pool *pgxpool.Pool, org, eventID string, n int) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('podium.system', 'on', true)`); err != nil {
			return err
		}
		for _, stmt := range []string{
			`INSERT INTO organization_contacts (id, created_at, updated_at, organization_id, first_name, last_name, email,
			   title, company, bio, custom)
			 SELECT 'crm_' || lpad(to_hex(g), 26, '0'), now() - g * interval '1 second', now(), $1, 'First' || g,
			   'Last' || (g % 5000), 'c' || g || '@bench.test', 'Title ' || (g % 40),
			   CASE WHEN g % 10 = 0 THEN 'Company ' || (g % 300) END, NULL,
			   CASE WHEN g % 10 = 0 THEN jsonb_build_object('source', 'bench', 'n', g) ELSE '{}'::jsonb END
			 FROM generate_series(1, $2::int) g`,
			`INSERT INTO organization_tags (id, created_at, updated_at, organization_id, name)
			 SELECT 'otag_' || lpad(to_hex(g), 26, '0'), now(), now(), $1, 'Tag ' || g FROM generate_series(1, 20) g
			 WHERE $2::int > 0`,
			`INSERT INTO organization_contact_tags (id, created_at, updated_at, organization_id, organization_contact_id, tag_id)
			 SELECT 'octg_' || lpad(to_hex(g * 2 + k), 26, '0'), now(), now(), $1, 'crm_' || lpad(to_hex(g), 26, '0'),
			   'otag_' || lpad(to_hex((g + k * 7) % 20 + 1), 26, '0')
			 FROM generate_series(1, $2::int) g, generate_series(0, 1) k`,
		} {
			if _, err := tx.Exec(ctx, stmt, org, n); err != nil {
				return fmt.Errorf("seed contacts: %w", err)
			}
		}
		if eventID == "" {
			return nil
		}
		_, err := tx.Exec(ctx, `
WITH linked AS (SELECT g FROM generate_series(7, $2::int, 7) g),
ec AS (
  INSERT INTO contacts (id, created_at, updated_at, organization_id, event_id, email, first_name, last_name,
    participation, dietary_requirements, custom, approved_profile, profile_review_status, workflow_status)
  SELECT 'ctc_' || lpad(to_hex(g), 26, '0'), now(), now(), $1, $3, 'c' || g || '@bench.test', 'First' || g,
    'Last' || (g % 5000), 'speaker', 'none', '{}', '{}', 'approved', 'invited' FROM linked
  RETURNING id)
INSERT INTO organization_contact_events (id, created_at, updated_at, organization_id, organization_contact_id,
  contact_id, event_id, role, status)
SELECT 'ocev_' || lpad(to_hex(g), 26, '0'), now(), now(), $1, 'crm_' || lpad(to_hex(g), 26, '0'),
  'ctc_' || lpad(to_hex(g), 26, '0'), $3, 'speaker', 'invited' FROM linked`, org, n, eventID)
		return err
	})
}

// TestCrmFloorMatchesREST keeps the benchmark's floor honest: the same bytes as GET /contacts.
func TestCrmFloorMatchesREST(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Floor"), "id")
	owner := pgtest.OwnerPool(t, b.db)
	require.NoError(t, seedContacts(b.sys(), owner, b.acmeOrg, ev, 300))
	ada := b.newContact("Ada", "Lovelace", "ada@example.test")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+str(ada, "id")+"/events", b.acme,
		map[string]any{"eventId": ev, "participation": "organizer"})
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+str(ada, "id")+"/tags", b.acme, map[string]any{"name": "Ünïcode \"quoted\""})

	rec := b.serveWith(http.MethodGet, "/api/v1/contacts", b.acme, "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	floor, err := floorContacts(b.sys(), owner, b.acmeOrg)
	require.NoError(t, err)
	require.Equal(t, string(floor), rec.Body.String())
	var rows []any
	require.NoError(t, json.Unmarshal(floor, &rows))
	require.Len(t, rows, 301)
}
