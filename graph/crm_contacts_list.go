package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"entgo.io/contrib/entgql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// The contact directory (listContacts) is one SQL statement whatever the number of contacts:
// PostgreSQL selects the contacts in directory order (last name, first name, id), joins each with
// its tags and event links aggregated once per kind, and writes the whole answer as JSON, which
// REST sends as it comes and GraphQL decodes into its rows. Over tens of thousands of contacts
// this costs what the database costs; no row passes through Go structs on the REST path.

// crmDirectoryPageSize is the default and largest page of the GraphQL directory.
const crmDirectoryPageSize = 500

// crmTS writes a timestamptz as Podium's timestamps: UTC with milliseconds.
func crmTS(col string) string {
	return fmt.Sprintf(`to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, col)
}

// crmDirectorySQL reads the directory of organization $1, filtered by $2 (lower-cased; empty for
// all), after the key ($3, $4, $5) when $5 is set, at most $6 rows (all when null). It returns the
// rows as one JSON array, and how many contacts match $2.
var crmDirectorySQL = strings.NewReplacer("{{created}}", crmTS("c.created_at"), "{{updated}}", crmTS("c.updated_at"),
	"{{tcreated}}", crmTS("t.created_at"), "{{tupdated}}", crmTS("t.updated_at"),
	"{{ecreated}}", crmTS("e.created_at"), "{{eupdated}}", crmTS("e.updated_at")).Replace(`
WITH page AS MATERIALIZED (
  SELECT c.* FROM organization_contacts c
  WHERE c.organization_id = $1
    AND ($2 = '' OR strpos(lower(c.first_name || ' ' || c.last_name || ' ' || c.email || ' ' || coalesce(c.company, '')), $2) > 0)
    AND ($5::text IS NULL OR (c.last_name, c.first_name, c.id) > ($3::text, $4::text, $5::text))
  ORDER BY c.last_name, c.first_name, c.id
  LIMIT $6
),
tags_of AS (
  SELECT ct.organization_contact_id AS id, json_agg(json_build_object('id', t.id, 'createdAt', {{tcreated}},
           'updatedAt', {{tupdated}}, 'organizationId', t.organization_id, 'name', t.name) ORDER BY t.name, t.id) AS list
  FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id
  WHERE ct.organization_id = $1 AND ct.organization_contact_id IN (SELECT id FROM page)
  GROUP BY ct.organization_contact_id
),
events_of AS (
  SELECT e.organization_contact_id AS id, json_agg(json_build_object('id', e.id, 'createdAt', {{ecreated}},
           'updatedAt', {{eupdated}}, 'organizationContactId', e.organization_contact_id, 'contactId', e.contact_id,
           'eventId', e.event_id, 'role', e.role, 'status', e.status) ORDER BY e.created_at, e.id) AS list
  FROM organization_contact_events e
  WHERE e.organization_id = $1 AND e.organization_contact_id IN (SELECT id FROM page)
  GROUP BY e.organization_contact_id
)
SELECT COALESCE(json_agg(json_build_object(
  'contact', json_build_object('id', c.id, 'createdAt', {{created}}, 'updatedAt', {{updated}},
    'organizationId', c.organization_id, 'firstName', c.first_name, 'lastName', c.last_name, 'email', c.email,
    'title', c.title, 'company', c.company, 'bio', c.bio, 'linkedinUrl', c.linkedin_url,
    'twitterUrl', c.twitter_url, 'facebookUrl', c.facebook_url, 'websiteUrl', c.website_url,
    'headshotUrl', c.headshot_url, 'custom', c.custom),
  'tags', COALESCE(tg.list, '[]'::json),
  'events', COALESCE(ev.list, '[]'::json)) ORDER BY c.last_name, c.first_name, c.id)::text, '[]'),
  %s
FROM page c
LEFT JOIN tags_of tg ON tg.id = c.id
LEFT JOIN events_of ev ON ev.id = c.id`)

var (
	// crmDirectoryAllSQL is the REST directory: every row, no count.
	crmDirectoryAllSQL = fmt.Sprintf(crmDirectorySQL, "0")
	// crmDirectoryPageSQL is a GraphQL page, with the count of every match.
	crmDirectoryPageSQL = fmt.Sprintf(crmDirectorySQL, `(SELECT count(*) FROM organization_contacts c
  WHERE c.organization_id = $1
    AND ($2 = '' OR strpos(lower(c.first_name || ' ' || c.last_name || ' ' || c.email || ' ' || coalesce(c.company, '')), $2) > 0))`)
)

// crmSearch normalizes the directory's search text: trimmed and lower-cased, empty for none.
func crmSearch(q *string) string {
	if q == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(*q))
}

// ContactDirectoryJSON is listContacts over REST: every contact of the organization matching q,
// as the JSON array of directory rows, written by PostgreSQL in one statement.
func (r *Resolver) ContactDirectoryJSON(ctx context.Context, q *string) ([]byte, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	var raw []byte
	var total int
	err := r.sql(ctx).QueryRow(ctx, crmDirectoryAllSQL, viewer.OrganizationID(ctx), crmSearch(q),
		nil, nil, nil, nil).Scan(&raw, &total)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// crmCursorVersion starts every directory cursor.
const crmCursorVersion = "c1"

// crmCursor is the place of a row in directory order.
func crmCursor(c *CrmContact) ent.Cursor {
	key, _ := json.Marshal([]string{crmCursorVersion, c.LastName, c.FirstName, c.ID})
	return ent.Cursor{ID: string(key)}
}

// parseCrmCursor reads a cursor made by crmCursor: the key (last name, first name, id).
func parseCrmCursor(c *entgql.Cursor[string]) ([]any, error) {
	if c == nil {
		return []any{nil, nil, nil}, nil
	}
	var key []string
	if err := json.Unmarshal([]byte(c.ID), &key); err != nil || len(key) != 4 || key[0] != crmCursorVersion {
		return nil, apperr.Invalid("The cursor is not valid")
	}
	return []any{key[1], key[2], key[3]}, nil
}

// contacts is the GraphQL directory: a page of at most first rows (default and at most 500)
// after the cursor, in the same statement as REST's.
func (r *Resolver) contacts(ctx context.Context, q *string, first *int, after *entgql.Cursor[string]) (*CrmContactConnection, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	limit := crmDirectoryPageSize
	if first != nil {
		if *first < 0 || *first > crmDirectoryPageSize {
			return nil, apperr.Invalid("first must be between 0 and %d", crmDirectoryPageSize)
		}
		limit = *first
	}
	key, err := parseCrmCursor(after)
	if err != nil {
		return nil, err
	}
	args := append([]any{viewer.OrganizationID(ctx), crmSearch(q)}, key...)
	var raw []byte
	conn := &CrmContactConnection{Edges: []*CrmContactEdge{}}
	if err := r.sql(ctx).QueryRow(ctx, crmDirectoryPageSQL, append(args, limit+1)...).Scan(&raw, &conn.TotalCount); err != nil {
		return nil, err
	}
	var rows []*CrmDirectoryRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, fmt.Errorf("graph: decode contact directory: %w", err)
	}
	if len(rows) > limit {
		rows, conn.PageInfo.HasNextPage = rows[:limit], true
	}
	conn.PageInfo.HasPreviousPage = after != nil
	for _, row := range rows {
		conn.Edges = append(conn.Edges, &CrmContactEdge{Node: row, Cursor: crmCursor(row.Contact)})
	}
	if n := len(conn.Edges); n > 0 {
		conn.PageInfo.StartCursor, conn.PageInfo.EndCursor = &conn.Edges[0].Cursor, &conn.Edges[n-1].Cursor
	}
	return conn, nil
}
