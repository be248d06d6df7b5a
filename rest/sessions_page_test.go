package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"entgo.io/contrib/entgql"
	"github.com/stretchr/testify/require"
)

// sessionPage is one page of Event.sessions.
type sessionPage struct {
	ids                    []string
	cursors                []string
	total                  int
	hasNext, hasPrevious   bool
	startCursor, endCursor string
	formats, tracks        []any
}

const sessionPageQuery = `query($e: ID!, $state: SessionState, $first: Int, $after: Cursor, $last: Int, $before: Cursor) {
	event(id: $e) { sessions(state: $state, first: $first, after: $after, last: $last, before: $before) {
		totalCount formats tracks { id }
		pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
		edges { cursor node { id title speakers { name } } } } } }`

func (b *testBundle) sessionPage(eventID string, vars map[string]any) sessionPage {
	b.t.Helper()
	vars["e"] = eventID
	conn := b.gqlOK(b.acme, sessionPageQuery, vars)["event"].(map[string]any)["sessions"].(map[string]any)
	info := conn["pageInfo"].(map[string]any)
	p := sessionPage{total: int(conn["totalCount"].(float64)), hasNext: info["hasNextPage"].(bool),
		hasPrevious: info["hasPreviousPage"].(bool), formats: conn["formats"].([]any), tracks: conn["tracks"].([]any)}
	p.startCursor, _ = info["startCursor"].(string)
	p.endCursor, _ = info["endCursor"].(string)
	for _, e := range conn["edges"].([]any) {
		edge := e.(map[string]any)
		p.ids = append(p.ids, edge["node"].(map[string]any)["id"].(string))
		p.cursors = append(p.cursors, edge["cursor"].(string))
	}
	return p
}

// walk pages through the whole list forward with pages of n and returns the ids in order.
func (b *testBundle) walk(eventID string, n int, state any) []string {
	b.t.Helper()
	var ids []string
	var after any
	for range 100 {
		p := b.sessionPage(eventID, map[string]any{"first": n, "after": after, "state": state})
		require.LessOrEqual(b.t, len(p.ids), n)
		ids = append(ids, p.ids...)
		if !p.hasNext {
			return ids
		}
		require.Len(b.t, p.ids, n, "a page before the last is full")
		after = p.endCursor
	}
	require.Fail(b.t, "paging did not end")
	return nil
}

// walkBack pages through the whole list backward with pages of n and returns the ids in order.
func (b *testBundle) walkBack(eventID string, n int) []string {
	b.t.Helper()
	var ids []string
	var before any
	for range 100 {
		p := b.sessionPage(eventID, map[string]any{"last": n, "before": before})
		ids = append(p.ids, ids...)
		if !p.hasPrevious {
			return ids
		}
		before = p.startCursor
	}
	require.Fail(b.t, "paging did not end")
	return nil
}

func TestSessionsKeysetPagination(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	// Scheduled sessions (two at the same start, one earlier) and unscheduled ones, which come
	// last, newest first.
	extra := make([]string, 6)
	for i := range extra {
		extra[i] = str(b.createSession(w, "Extra "+itoa(i), w.grace), "id")
	}
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T12:00:00Z", "2027-09-10T12:45:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, extra[3], st.hall, "2027-09-10T09:00:00Z", "2027-09-10T09:30:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+extra[5]+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})

	all := b.sessionPage(w.event, map[string]any{})
	require.Len(t, all.ids, 9)
	require.Equal(t, 9, all.total)
	require.False(t, all.hasNext)
	require.False(t, all.hasPrevious)
	require.Equal(t, extra[3], all.ids[0], "earliest start first")
	restIDs := []string{}
	for _, s := range sessionsOf(b.listSessions(w, "")) {
		restIDs = append(restIDs, str(s, "id"))
	}
	require.Equal(t, restIDs, all.ids, "REST lists every session, in the same order")

	for _, n := range []int{1, 2, 4, 9, 20} {
		require.Equal(t, all.ids, b.walk(w.event, n, nil), "forward by %d", n)
		require.Equal(t, all.ids, b.walkBack(w.event, n), "backward by %d", n)
	}
	var activeIDs []string
	for _, id := range all.ids {
		if id != extra[5] {
			activeIDs = append(activeIDs, id)
		}
	}
	require.Equal(t, activeIDs, b.walk(w.event, 2, "active"))
	require.Equal(t, []string{extra[5]}, b.walk(w.event, 2, "cancelled"))

	// A page carries what the full list carries for its sessions, and the list-wide fields.
	page := b.sessionPage(w.event, map[string]any{"first": 1, "after": all.cursors[2]})
	require.Equal(t, all.ids[3:4], page.ids)
	require.Equal(t, all.cursors[3:4], page.cursors)
	require.Equal(t, 9, page.total)
	require.Equal(t, all.formats, page.formats)
	require.Equal(t, all.tracks, page.tracks)
	require.True(t, page.hasNext)
	require.True(t, page.hasPrevious)
	require.NotEmpty(t, all.formats)
	require.NotEmpty(t, all.tracks)
	// A page that turns out to hold the whole list takes its list-wide fields from its own rows;
	// one session short, from the counts statement: both say the same.
	exact := b.sessionPage(w.event, map[string]any{"first": 9})
	require.Equal(t, all, exact)
	short := b.sessionPage(w.event, map[string]any{"first": 8})
	require.Equal(t, all.ids[:8], short.ids)
	require.Equal(t, 9, short.total)
	require.True(t, short.hasNext)
	require.Equal(t, all.formats, short.formats)
	require.Equal(t, all.tracks, short.tracks)
	active := b.sessionPage(w.event, map[string]any{"state": "active"})
	require.Equal(t, 8, active.total)
	require.Equal(t, all.formats, active.formats, "formats and tracks are those of the whole list")
	require.Equal(t, all.tracks, active.tracks)
	whole := b.sessionPage(w.event, map[string]any{"first": 4})
	require.Equal(t, all.ids[:4], whole.ids)
	require.False(t, whole.hasPrevious)
	mid := b.sessionPage(w.event, map[string]any{"first": 4, "last": 2, "after": all.cursors[0]})
	require.Equal(t, all.ids[3:5], mid.ids, "first, then last of those")
	require.True(t, mid.hasPrevious)
	require.True(t, mid.hasNext)
	between := b.sessionPage(w.event, map[string]any{"after": all.cursors[1], "before": all.cursors[5]})
	require.Equal(t, all.ids[2:5], between.ids)
	crossed := b.sessionPage(w.event, map[string]any{"after": all.cursors[5], "before": all.cursors[1]})
	require.Empty(t, crossed.ids)
	empty := b.sessionPage(w.event, map[string]any{"first": 0})
	require.Empty(t, empty.ids)
	require.True(t, empty.hasNext)

	// A cursor keeps its place when sessions are added or removed before it — and when its own
	// session is gone.
	cursor := all.cursors[6]
	next := b.sessionPage(w.event, map[string]any{"first": 2, "after": cursor})
	require.Equal(t, all.ids[7:9], next.ids)
	added := str(b.createSession(w, "Added later", w.grace), "id") // newest of the unscheduled
	require.Equal(t, http.StatusOK, b.schedule(st, added, st.hall, "2027-09-10T08:00:00Z", "2027-09-10T08:30:00Z").Status)
	b.createSession(w, "Added unscheduled", w.ada) // the newest: first of the unscheduled
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/sessions/"+extra[3], b.acme, nil)
	require.Equal(t, next.ids, b.sessionPage(w.event, map[string]any{"first": 2, "after": cursor}).ids)
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/sessions/"+all.ids[6], b.acme, nil)
	require.Equal(t, next.ids, b.sessionPage(w.event, map[string]any{"first": 2, "after": cursor}).ids,
		"the cursor of a deleted session still marks its place")
	require.Equal(t, all.ids[4:6], b.sessionPage(w.event, map[string]any{"last": 2, "before": cursor}).ids)

	// Cursors are opaque and checked.
	for _, bad := range []any{"x", "AAAA", entgql.Cursor[string]{ID: "3"}, entgql.Cursor[string]{ID: "s1||1|nope"},
		entgql.Cursor[string]{ID: "s1|x|1|" + all.ids[0]}} {
		if c, ok := bad.(entgql.Cursor[string]); ok {
			var buf bytes.Buffer
			c.MarshalGQL(&buf)
			require.NoError(t, json.Unmarshal(buf.Bytes(), &bad))
		}
		r := b.gql(b.acme, sessionPageQuery, map[string]any{"e": w.event, "first": 1, "after": bad})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), "%v: %s", bad, r.Raw)
	}
	r := b.gql(b.acme, sessionPageQuery, map[string]any{"e": w.event, "first": -1})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
}

// A page costs the same number of statements whatever its size or the list's; a read of more than a
// page (graph.pageRead) that holds the whole list costs one less (no counts statement).
func TestSessionsPageQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	for i := range 30 {
		b.createSession(w, "Session "+itoa(i), w.ada, w.grace)
	}
	count := func(first int) int64 {
		const q = `query($e: ID!, $first: Int) { event(id: $e) { sessions(first: $first) { totalCount
			pageInfo { hasNextPage } edges { node { id speakers { name } tracks { name } tasksTotal } } } } }`
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"e": w.event, "first": first}})
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.NotContains(t, rec.Body.String(), `"errors"`)
		var out struct {
			Data struct {
				Event struct {
					Sessions struct {
						Edges []any `json:"edges"`
					} `json:"sessions"`
				} `json:"event"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		require.Len(t, out.Data.Event.Sessions.Edges, min(first, 30))
		return statements(t, rec)
	}
	count(10) // the first request of a key may touch its last use
	ten := count(10)
	require.Equal(t, ten, count(1))
	require.Equal(t, ten, count(29))
	require.Equal(t, ten, count(30), "a page's counts are read alongside its rows, even when it holds the whole list")
	require.Equal(t, ten-1, count(1000), "a read of the whole list: no counts statement")
	require.Equal(t, ten-1, count(31+100))
}
