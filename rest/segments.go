package rest

import (
	"bytes"
	"context"
	"strconv"

	"entgo.io/contrib/entgql"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Segments: saved filters over the organization's contacts (docs/crm-pipeline.md). listSegments
// and saveSegment are the original API's; listSegmentContacts, the evaluation, is Podium's own.

func (a *API) listSegments(ctx context.Context, _ *request) (any, error) {
	return a.ops.Segments(ctx)
}

func (a *API) saveSegment(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveSegmentInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveSegment(ctx, in)
}

// SegmentContacts is a page of the contacts a segment selects.
type SegmentContacts struct {
	// Rows are the contacts of the page, each as a row of listContacts.
	Rows []*model.CrmDirectoryRow `json:"rows"`
	// TotalCount is how many contacts the segment selects, across all pages.
	TotalCount int `json:"totalCount"`
	// NextCursor, passed as after, asks for the next page; null on the last page.
	NextCursor *string `json:"nextCursor"`
}

func (a *API) listSegmentContacts(ctx context.Context, q *request) (any, error) {
	values := q.URL.Query()
	var first *int
	if s := values.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, apperr.Invalid("limit must be a whole number")
		}
		first = &n
	}
	var after *entgql.Cursor[string]
	if s := values.Get("after"); s != "" {
		after = &entgql.Cursor[string]{}
		if after.UnmarshalGQL(s) != nil {
			return nil, apperr.Invalid("The cursor is not valid")
		}
	}
	seg, err := a.ops.Segment(ctx, q.param("segmentId"))
	if err != nil {
		return nil, err
	}
	conn, err := a.ops.SegmentContacts(ctx, seg, first, after)
	if err != nil {
		return nil, err
	}
	out := SegmentContacts{Rows: make([]*model.CrmDirectoryRow, len(conn.Edges)), TotalCount: conn.TotalCount}
	for i, e := range conn.Edges {
		out.Rows[i] = e.Node
	}
	if conn.PageInfo.HasNextPage && conn.PageInfo.EndCursor != nil {
		var b bytes.Buffer
		conn.PageInfo.EndCursor.MarshalGQL(&b)
		next, err := strconv.Unquote(b.String())
		if err != nil {
			return nil, err
		}
		out.NextCursor = &next
	}
	return out, nil
}
