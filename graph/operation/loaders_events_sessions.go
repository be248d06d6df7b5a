package operation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent/schema/agenda"
)

// Event.sessions under a page of events reads every event's window in four statements, whatever
// the number of events: the pages (each event's sessions numbered within their event in the list
// order and cut at the limit), the counts of each event's list (grouped by event), and the
// tracks and speakers of the pages' sessions. The single path's cursors, limits and the page's
// place in its window are the same code (sessionQuery.limitTo, place, pageCounts).

// eventsScopeSQL is sessionScopeSQL for the events $1 (an array) instead of the event $1.
var eventsScopeSQL = eventsSQL(sessionScopeSQL)

// eventsSQL turns a statement over the event $1 into one over the events $1.
func eventsSQL(sql string) string {
	out := strings.Replace(sql, "s.event_id = $1", "s.event_id = ANY($1)", 1)
	if out == sql || strings.Contains(out, "event_id = $1") {
		panic("graph: eventsSQL: no single event to replace in " + sql)
	}
	return out
}

// sessionsPageSQL is sessionPageSQL for the events $1: each event's rows numbered in the list order
// (%[1]s, reversed for a page from the end) and cut at $10 (all when null).
var sessionsPageSQL = `
WITH page AS (
  SELECT id FROM (
    SELECT s.id, row_number() OVER (PARTITION BY s.event_id ORDER BY %[1]s) AS n
    FROM submissions s
    WHERE ` + eventsScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `) numbered
  WHERE $10::bigint IS NULL OR n <= $10)
` + sessionRowsOfPageSQL

// sessionsCountsSQL is sessionCountsSQL for the events $1, one row per event with accepted
// sessions; an event without one counts nothing.
var sessionsCountsSQL = `
SELECT s.event_id,
       count(*) FILTER (WHERE ` + eventsScopeSQL + `),
       count(*) FILTER (WHERE ` + eventsScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `),
       count(*) FILTER (WHERE ` + eventsScopeSQL + ` AND NOT ` + sessionAfterSQL + `),
       count(*) FILTER (WHERE ` + eventsScopeSQL + ` AND NOT ` + sessionBeforeSQL + `),
       COALESCE(array_agg(DISTINCT f.name) FILTER (WHERE f.name IS NOT NULL), '{}'),
       (SELECT COALESCE(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                                 ORDER BY t.position, t.name, t.id), '[]')
        FROM tracks t
        WHERE EXISTS (SELECT 1 FROM submission_tracks st JOIN submissions a ON a.id = st.submission_id
                      WHERE st.track_id = t.id AND a.event_id = s.event_id AND a.status = 'accepted'))
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
WHERE s.event_id = ANY($1) AND s.status = 'accepted'
GROUP BY s.event_id`

// sessionArgs are what Event.sessions asks of each event of a page: q without its event, its
// limit set (limitTo).
type sessionArgs struct {
	q           sessionQuery
	first, last *int
	whole       bool
}

// sessionPageOf is one event's window: the sessions shown and the list's counts.
type sessionPageOf struct {
	page   []*model.Session
	counts *sessionCounts
}

// sessionWindowInList is sessionWindow for an event of a page of events, read with the page's
// other events (eventLoaders.sessions).
func (r *Service) sessionWindowInList(ctx context.Context, eventID string, q sessionQuery, first, last *int) (
	[]*model.Session, *sessionCounts, error) {
	a := &sessionArgs{q: q, first: first, last: last}
	a.whole = a.q.limitTo(first, last)
	l := r.eventLoaders(ctx)
	args := l.fieldArgs(ctx, a)
	w, err := loadEvent(ctx, l.sessions, eventPageKey{eventID, args}, func(e string) eventPageKey { return eventPageKey{e, args} })
	if err != nil {
		return nil, nil, err
	}
	return w.page, w.counts, nil
}

// eventsSessions reads the windows of keys, those of one field together.
func (r *Service) eventsSessions(ctx context.Context, keys []eventPageKey) (map[eventPageKey]*sessionPageOf, error) {
	out := make(map[eventPageKey]*sessionPageOf, len(keys))
	for args, keys := range group(keys, func(k eventPageKey) any { return k.args }) {
		a := args.(*sessionArgs)
		events := unique(mapAll(keys, func(k eventPageKey) string { return k.event }))
		windows, err := r.sessionWindows(ctx, a, events)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			out[k] = windows[k.event]
		}
	}
	return out, nil
}

// sessionWindows reads the windows of a for events.
func (r *Service) sessionWindows(ctx context.Context, a *sessionArgs, events []string) (map[string]*sessionPageOf, error) {
	db, q := r.sql(ctx), a.q
	args := q.args()
	args[0] = events
	var counts map[string]*sessionCounts
	if !a.whole || a.first != nil {
		var err error
		if counts, err = r.eventsSessionCounts(ctx, args[:9]); err != nil {
			return nil, err
		}
	}
	order := sessionOrderSQL
	if q.fromEnd {
		order = sessionReverseOrderSQL
	}
	sessions, err := readSessions(ctx, db, fmt.Sprintf(sessionsPageSQL, order), args)
	if err != nil {
		return nil, err
	}
	var links sessionLinks
	if len(sessions) > 0 {
		ids := mapAll(sessions, func(s *model.Session) string { return s.ID })
		if links.tracks, err = readSessionTracks(ctx, db, sessionTracksSQL, ids); err != nil {
			return nil, err
		}
		if links.speakers, err = readSessionSpeakers(ctx, db, sessionSpeakersSQL, ids); err != nil {
			return nil, err
		}
	}
	eventOf := make(map[string]string, len(sessions))
	for _, s := range sessions {
		eventOf[s.ID] = s.EventID
	}
	pages := group(sessions, func(s *model.Session) string { return s.EventID })
	tracks := group(links.tracks, func(t sessionTrack) string { return eventOf[t.sessionID] })
	speakers := group(links.speakers, func(sp sessionSpeaker) string { return eventOf[sp.sessionID] })
	out := make(map[string]*sessionPageOf, len(events))
	for _, e := range events {
		page := nonNilSlice(pages[e])
		if q.fromEnd {
			slices.Reverse(page)
		}
		pageTracks := sessionLinks{tracks: tracks[e], speakers: speakers[e]}.attach(page)
		if a.whole && (a.first == nil || len(page) <= *a.first) {
			out[e] = &sessionPageOf{page, pageCounts(page, pageTracks)}
			continue
		}
		if a.whole {
			page = page[:*a.first]
		}
		c := counts[e]
		if c == nil {
			c = &sessionCounts{formats: []string{}, tracks: []agenda.Track{}}
		}
		out[e] = &sessionPageOf{q.place(page, a.last, c), c}
	}
	return out, nil
}

// eventsSessionCounts reads sessionsCountsSQL with args, by event.
func (r *Service) eventsSessionCounts(ctx context.Context, args []any) (map[string]*sessionCounts, error) {
	out := map[string]*sessionCounts{}
	rows, err := r.sql(ctx).Query(ctx, sessionsCountsSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var event string
		var c sessionCounts
		var tracks []byte
		if err := rows.Scan(&event, &c.total, &c.window, &c.beforeWindow, &c.afterWindow, &c.formats, &tracks); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(tracks, &c.tracks); err != nil {
			return nil, err
		}
		sort.Strings(c.formats)
		out[event] = &c
	}
	return out, rows.Err()
}
