package operation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"entgo.io/contrib/entgql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/segment"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// Segments (docs/crm-pipeline.md): saved filters over the organization's contact book. The
// original product stored them and evaluated them in the browser over the whole directory;
// Podium evaluates them in PostgreSQL, in one statement whatever the number of contacts
// (SegmentMembers), so that a segment can be listed page by page and used as a campaign's
// audience.

func toCrmSegment(s *ent.Segment) *model.CrmSegment {
	filter := s.Filter
	if filter == nil {
		filter = map[string]any{}
	}
	return &model.CrmSegment{ID: s.ID, CreatedAt: scalar.At(s.CreatedAt), UpdatedAt: scalar.At(s.UpdatedAt),
		OrganizationID: s.OrganizationID, Name: s.Name, Filter: filter}
}

// SegmentFilter is a segment's filter as Podium reads it: a missing or ill-typed key is no
// constraint, as in the original product, and tag ids that are not strings are dropped.
type SegmentFilter struct {
	// Search must be contained in the contact's normalised haystack: first name, last name,
	// email, company, title and tag names (by name), joined by spaces.
	Search string
	// Company and Title must equal the contact's, both normalised.
	Company, Title string
	// TagIDs: the contact has at least one of them.
	TagIDs []string
}

// Bounds of a saved filter's values, so that evaluating one stays cheap. The original product
// had none; its filters were evaluated in the browser.
const (
	maxSegmentText = 500
	maxSegmentTags = 500
)

// ReadSegmentFilter reads a stored or submitted filter. Unknown keys are ignored here (and kept
// in storage).
func ReadSegmentFilter(raw map[string]any) SegmentFilter {
	text := func(key string) string {
		s, _ := raw[key].(string)
		return s
	}
	f := SegmentFilter{Search: text("search"), Company: text("company"), Title: text("title")}
	if list, ok := raw["tagIds"].([]any); ok {
		for _, v := range list {
			if id, ok := v.(string); ok && !slices.Contains(f.TagIDs, id) {
				f.TagIDs = append(f.TagIDs, id)
			}
		}
	}
	return f
}

// check refuses a filter Podium would not evaluate cheaply.
func (f SegmentFilter) check() error {
	for label, s := range map[string]string{"search": f.Search, "company": f.Company, "title": f.Title} {
		if utf8.RuneCountInString(s) > maxSegmentText {
			return apperr.Invalid("filter.%s must be at most %d characters", label, maxSegmentText)
		}
	}
	if len(f.TagIDs) > maxSegmentTags {
		return apperr.Invalid("filter.tagIds must list at most %d tags", maxSegmentTags)
	}
	return nil
}

// NormalizeSegmentText is the filter's normal form of a value: lower-cased, every run of
// characters other than a–z and 0–9 replaced by one space, trimmed.
func NormalizeSegmentText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// nonAlnum is a run of what normalising turns into one space.
const nonAlnum = `[^a-z0-9]+`

// normalPattern is a regular expression matching, in the lower-cased raw text, exactly what
// contains the normalised value n: each space of n stands for a run of other characters. The
// haystack is then never normalised row by row, which costs a regexp_replace per contact.
func normalPattern(n string) string {
	return strings.ReplaceAll(n, " ", nonAlnum)
}

// SegmentMembers returns one SQL query selecting the organization's contacts that filter
// selects, as rows (id, last_name, first_name) of organization_contacts, and its arguments:
// args with the query's own appended, so that the query's placeholders continue the caller's
// ($len(args)+1 …). It is a subquery to embed, e.g. `WHERE c.id IN (SELECT id FROM (<query>) m)`,
// and costs one statement whatever the number of contacts. Every table it reads is filtered by
// org itself, besides row-level security (docs/tenancy.md).
func SegmentMembers(org string, filter map[string]any, args []any) (string, []any) {
	f := ReadSegmentFilter(filter)
	param := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	orgP := param(org)
	var join string
	where := []string{"c.organization_id = " + orgP}
	if n := NormalizeSegmentText(f.Search); n != "" {
		// The haystack spans the contact and its tag names, so a search may run from one into
		// the next, as in the original.
		join = ` LEFT JOIN (SELECT ct.organization_contact_id AS id, string_agg(t.name, ' ' ORDER BY t.name, t.id) AS names
  FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id AND t.organization_id = ` + orgP + `
  WHERE ct.organization_id = ` + orgP + ` GROUP BY ct.organization_contact_id) tn ON tn.id = c.id`
		where = append(where, `lower(c.first_name || ' ' || c.last_name || ' ' || c.email || ' ' || coalesce(c.company, '') || ' ' ||
  coalesce(c.title, '') || ' ' || coalesce(tn.names, '')) ~ `+param(normalPattern(n)))
	}
	for _, eq := range []struct{ column, value string }{{"company", f.Company}, {"title", f.Title}} {
		if n := NormalizeSegmentText(eq.value); n != "" {
			where = append(where, fmt.Sprintf("lower(coalesce(c.%s, '')) ~ %s", eq.column,
				param("^[^a-z0-9]*"+normalPattern(n)+"[^a-z0-9]*$")))
		}
	}
	if len(f.TagIDs) > 0 {
		where = append(where, `EXISTS (SELECT 1 FROM organization_contact_tags ct WHERE ct.organization_contact_id = c.id
  AND ct.organization_id = `+orgP+` AND ct.tag_id = ANY(`+param(f.TagIDs)+`))`)
	}
	return "SELECT c.id, c.last_name, c.first_name FROM organization_contacts c" + join +
		"\nWHERE " + strings.Join(where, "\n  AND "), args
}

// SegmentContactIDs returns the ids of the contacts segmentID selects now, by last name, first
// name and id, in two statements whatever their number: the campaigns' audience. A segment
// that is not the organization's is not_found.
func (r *Service) SegmentContactIDs(ctx context.Context, segmentID string) ([]string, error) {
	s, err := r.segmentRow(ctx, segmentID)
	if err != nil {
		return nil, err
	}
	q, args := SegmentMembers(s.OrganizationID, s.Filter, nil)
	rows, err := r.sql(ctx).Query(ctx, "SELECT m.id FROM ("+q+") m ORDER BY m.last_name, m.first_name, m.id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (r *Service) Segments(ctx context.Context) ([]*model.CrmSegment, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	rows, err := r.ClientOf(ctx).Segment.Query().Order(ent.Asc(segment.FieldName), ent.Asc(segment.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return mapAll(rows, toCrmSegment), nil
}

// segmentRow returns the organization's segment id, or 404.
func (r *Service) segmentRow(ctx context.Context, id string) (*ent.Segment, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	s, err := r.ClientOf(ctx).Segment.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("Segment")
	}
	return s, err
}

func (r *Service) Segment(ctx context.Context, id string) (*model.CrmSegment, error) {
	s, err := r.segmentRow(ctx, id)
	if err != nil {
		return nil, err
	}
	return toCrmSegment(s), nil
}

// SaveSegment creates the segment or, when the organization has one of that name, replaces its
// filter (one upsert on the unique name).
func (r *Service) SaveSegment(ctx context.Context, in model.SaveSegmentInput) (*model.CrmSegment, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmSegment, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		if err := ReadSegmentFilter(in.Filter).check(); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		id, err := c.Segment.Create().SetName(strings.TrimSpace(in.Name)).SetFilter(in.Filter).
			OnConflictColumns(segment.FieldOrganizationID, segment.FieldName).
			UpdateFilter().UpdateUpdatedAt().ID(ctx)
		if err != nil {
			return nil, err
		}
		s, err := c.Segment.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		return toCrmSegment(s), nil
	})
}

// Segment pages: first defaults to 100 and is at most 1000.
const (
	defaultSegmentPage = 100
	maxSegmentPage     = 1000
)

// segmentPageSQL is a page of a segment's contacts and their total, in one statement: the
// members (SegmentMembers) once, their count, and the rows of the page as JSON, each the
// directory's {contact, tags, events}. It selects one row more than the page, to tell whether
// another page follows.
const segmentPageSQL = `WITH m AS MATERIALIZED (%s)
SELECT (SELECT count(*) FROM m), COALESCE((SELECT json_agg(json_build_object(
  'contact', json_build_object('id', c.id, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
    'organizationId', c.organization_id, 'firstName', c.first_name, 'lastName', c.last_name, 'email', c.email,
    'title', c.title, 'company', c.company, 'bio', c.bio, 'linkedinUrl', c.linkedin_url, 'twitterUrl', c.twitter_url,
    'facebookUrl', c.facebook_url, 'websiteUrl', c.website_url, 'headshotUrl', c.headshot_url, 'custom', c.custom),
  'tags', COALESCE((SELECT json_agg(json_build_object('id', t.id, 'createdAt', t.created_at, 'updatedAt', t.updated_at,
      'organizationId', t.organization_id, 'name', t.name) ORDER BY t.name, t.id)
    FROM organization_contact_tags ct JOIN organization_tags t ON t.id = ct.tag_id AND t.organization_id = $1
    WHERE ct.organization_contact_id = c.id AND ct.organization_id = $1), '[]'),
  'events', COALESCE((SELECT json_agg(json_build_object('id', e.id, 'createdAt', e.created_at, 'updatedAt', e.updated_at,
      'organizationContactId', e.organization_contact_id, 'contactId', e.contact_id, 'eventId', e.event_id,
      'role', e.role, 'status', e.status) ORDER BY e.created_at, e.id)
    FROM organization_contact_events e WHERE e.organization_contact_id = c.id AND e.organization_id = $1), '[]')
  ) ORDER BY p.last_name, p.first_name, p.id)
  FROM (SELECT * FROM m WHERE %s ORDER BY m.last_name, m.first_name, m.id LIMIT %s) p
  JOIN organization_contacts c ON c.id = p.id AND c.organization_id = $1), '[]')`

// SegmentContacts answers CrmSegment.contacts: a page of the contacts the segment selects now.
func (r *Service) SegmentContacts(ctx context.Context, s *model.CrmSegment, first *int, after *entgql.Cursor[string]) (*model.CrmContactConnection, error) {
	n, err := crmPageSize(first, defaultSegmentPage, maxSegmentPage)
	if err != nil {
		return nil, err
	}
	key, err := parseCrmCursor(after) // the directory's order, so the directory's cursors
	if err != nil {
		return nil, err
	}
	org := viewer.OrganizationID(ctx)
	if org != s.OrganizationID {
		return nil, apperr.NotFound("Segment")
	}
	members, args := SegmentMembers(org, s.Filter, nil)
	keyset := "true"
	if after != nil {
		args = append(args, key...)
		keyset = fmt.Sprintf("(m.last_name, m.first_name, m.id) > ($%d, $%d, $%d)", len(args)-2, len(args)-1, len(args))
	}
	args = append(args, n+1)
	var (
		total int
		raw   []byte
	)
	if err := r.sql(ctx).QueryRow(ctx, fmt.Sprintf(segmentPageSQL, members, keyset, fmt.Sprintf("$%d", len(args))), args...).
		Scan(&total, &raw); err != nil {
		return nil, err
	}
	return crmPage(raw, total, n, after != nil)
}
