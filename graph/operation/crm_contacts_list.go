package operation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/podium/podium/graph/model"

	"entgo.io/contrib/entgql"
	"github.com/jackc/pgx/v5"

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

// crmDirectoryCTEs select the directory page of organization $1, filtered by $2 (lower-cased;
// empty for all), after the key ($3, $4, $5) when $5 is set, at most $6 rows (all when null), and
// aggregate each page contact's tags and event links once per kind.
var crmDirectoryCTEs = strings.NewReplacer("{{tcreated}}", crmTS("t.created_at"), "{{tupdated}}", crmTS("t.updated_at"),
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
)`)

// crmDirectoryRow is one directory row as JSON, of the page contact c.
var crmDirectoryRow = strings.NewReplacer("{{created}}", crmTS("c.created_at"), "{{updated}}", crmTS("c.updated_at")).Replace(`
json_build_object(
  'contact', json_build_object('id', c.id, 'createdAt', {{created}}, 'updatedAt', {{updated}},
    'organizationId', c.organization_id, 'firstName', c.first_name, 'lastName', c.last_name, 'email', c.email,
    'title', c.title, 'company', c.company, 'bio', c.bio, 'linkedinUrl', c.linkedin_url,
    'twitterUrl', c.twitter_url, 'facebookUrl', c.facebook_url, 'websiteUrl', c.website_url,
    'headshotUrl', c.headshot_url, 'custom', c.custom),
  'tags', COALESCE(tg.list, '[]'::json),
  'events', COALESCE(ev.list, '[]'::json))`)

// crmDirectoryFrom joins the page with its aggregates.
const crmDirectoryFrom = `
FROM page c
LEFT JOIN tags_of tg ON tg.id = c.id
LEFT JOIN events_of ev ON ev.id = c.id`

var (
	// crmDirectoryRowsSQL is the REST directory: one JSON row per contact, in directory order,
	// which REST streams as they come (ContactDirectory).
	crmDirectoryRowsSQL = crmDirectoryCTEs + "\nSELECT " + crmDirectoryRow + "::text" + crmDirectoryFrom +
		"\nORDER BY c.last_name, c.first_name, c.id"
	// crmDirectoryPageSQL is a GraphQL page as one JSON array, with the count of every match.
	crmDirectoryPageSQL = crmDirectoryCTEs + "\nSELECT COALESCE(json_agg(" + crmDirectoryRow +
		" ORDER BY c.last_name, c.first_name, c.id)::text, '[]'), " + `(SELECT count(*) FROM organization_contacts c
  WHERE c.organization_id = $1
    AND ($2 = '' OR strpos(lower(c.first_name || ' ' || c.last_name || ' ' || c.email || ' ' || coalesce(c.company, '')), $2) > 0))` +
		crmDirectoryFrom
)

// crmSearch normalizes the directory's search text: trimmed and lower-cased, empty for none.
func crmSearch(q *string) string {
	if q == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(*q))
}

// ContactDirectory is listContacts over REST: every contact of the organization matching q, in
// directory order, one JSON row per contact as PostgreSQL writes it. The statement has started
// when it is returned (its errors are the caller's to answer); WriteTo then streams the array,
// row by row, so that a directory of tens of megabytes never sits whole in the server's memory.
type ContactDirectory struct {
	rows  pgx.Rows
	first []byte // the first row, read to surface the statement's errors; nil for none
}

// ContactDirectory starts listContacts' statement.
func (r *Service) ContactDirectory(ctx context.Context, q *string) (*ContactDirectory, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	rows, err := r.sql(ctx).Query(ctx, crmDirectoryRowsSQL, viewer.OrganizationID(ctx), crmSearch(q), nil, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	d := &ContactDirectory{rows: rows}
	if rows.Next() {
		if err := rows.Scan(&d.first); err != nil {
			rows.Close()
			return nil, err
		}
		d.first = bytes.Clone(d.first)
	} else if err := rows.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// WriteTo writes the directory as one compact JSON array ended with a newline, and ends the
// statement. An error after the first row leaves a truncated array, which no client takes for a
// whole one.
func (d *ContactDirectory) WriteTo(w io.Writer) (int64, error) {
	defer d.rows.Close()
	var b bytes.Buffer
	var n int64
	flush := func() error {
		m, err := w.Write(b.Bytes())
		n += int64(m)
		b.Reset()
		return err
	}
	b.WriteByte('[')
	row := d.first
	for i := 0; row != nil; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := json.Compact(&b, row); err != nil {
			return n, err
		}
		if b.Len() >= 64<<10 {
			if err := flush(); err != nil {
				return n, err
			}
		}
		row = nil
		if d.rows.Next() {
			if err := d.rows.Scan(&row); err != nil {
				return n, err
			}
		}
	}
	if err := d.rows.Err(); err != nil {
		return n, err
	}
	b.WriteString("]\n")
	return n, flush()
}

// crmCursorVersion starts every directory cursor.
const crmCursorVersion = "c1"

// crmCursor is the place of a row in directory order.
func crmCursor(c *model.CrmContact) ent.Cursor {
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

// Contacts is the GraphQL directory: a page of at most first rows (default and at most 500)
// after the cursor, in the same statement as REST's.
func (r *Service) Contacts(ctx context.Context, q *string, first *int, after *entgql.Cursor[string]) (*model.CrmContactConnection, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	limit, err := crmPageSize(first, crmDirectoryPageSize, crmDirectoryPageSize)
	if err != nil {
		return nil, err
	}
	key, err := parseCrmCursor(after)
	if err != nil {
		return nil, err
	}
	args := append([]any{viewer.OrganizationID(ctx), crmSearch(q)}, key...)
	var raw []byte
	var total int
	if err := r.sql(ctx).QueryRow(ctx, crmDirectoryPageSQL, append(args, limit+1)...).Scan(&raw, &total); err != nil {
		return nil, err
	}
	return crmPage(raw, total, limit, after != nil)
}

// crmPageSize is the page size first asks for: def when it is nil, refused outside 0..most.
func crmPageSize(first *int, def, most int) (int, error) {
	if first == nil {
		return def, nil
	}
	if *first < 0 || *first > most {
		return 0, apperr.Invalid("first must be between 0 and %d", most)
	}
	return *first, nil
}

// crmPage makes a connection of directory rows (raw, a JSON array of up to limit+1 rows, one
// more than the page telling that another follows), total matching in all: the contacts
// directory's and a segment's pages alike.
func crmPage(raw []byte, total, limit int, afterCursor bool) (*model.CrmContactConnection, error) {
	var rows []*model.CrmDirectoryRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, fmt.Errorf("graph: decode contact directory: %w", err)
	}
	conn := &model.CrmContactConnection{TotalCount: total, Edges: make([]*model.CrmContactEdge, 0, min(len(rows), limit))}
	if len(rows) > limit {
		rows, conn.PageInfo.HasNextPage = rows[:limit], true
	}
	conn.PageInfo.HasPreviousPage = afterCursor
	for _, row := range rows {
		row.ID = row.Contact.ID
		conn.Edges = append(conn.Edges, &model.CrmContactEdge{Node: row, Cursor: crmCursor(row.Contact)})
	}
	if n := len(conn.Edges); n > 0 {
		conn.PageInfo.StartCursor, conn.PageInfo.EndCursor = &conn.Edges[0].Cursor, &conn.Edges[n-1].Cursor
	}
	return conn, nil
}
