package operation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podium/podium/graph/model"

	"entgo.io/contrib/entgql"
	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

// errSessionNotFound answers for a session id that names no accepted submission of the event.
var errSessionNotFound = apperr.NotFound("Session")

// The session list is read in a fixed number of queries, whatever the number of sessions and
// whatever the page: the sessions of the page with their readiness counts; the counts, tracks and
// formats of the whole list; the page's tracks; the page's speakers. A page of 10 costs what it
// shows: the page is chosen in SQL on the list order with a keyset predicate and a LIMIT, and only
// its sessions are joined with their counts, tracks and speakers.
//
// The list order is start time (unscheduled last), then newest first, then id: a total order on
// stored values, so a cursor — the key of a session in that order — keeps its place when sessions
// are added or removed before it, and stays valid when its own session is deleted.
const (
	// sessionScopeSQL selects the accepted submissions of event $1 — or the one named $2 — in
	// state $3 ('', active, cancelled), after the key ($4, $5, $6) and before the key ($7, $8, $9)
	// when those are set. A key is (starts_at, created_at, id); $5 or $8 null means no cursor.
	sessionScopeSQL = `s.event_id = $1 AND s.status = 'accepted' AND ($2 = '' OR s.id = $2)
  AND ($3 = '' OR ($3 = 'active') = (s.cancelled_at IS NULL))`
	sessionAfterSQL = `($5::timestamptz IS NULL OR CASE WHEN $4::timestamptz IS NULL
    THEN s.starts_at IS NULL AND (s.created_at, s.id) < ($5::timestamptz, $6::text)
    ELSE s.starts_at > $4::timestamptz OR s.starts_at IS NULL
      OR (s.starts_at = $4::timestamptz AND (s.created_at, s.id) < ($5::timestamptz, $6::text)) END)`
	sessionBeforeSQL = `($8::timestamptz IS NULL OR CASE WHEN $7::timestamptz IS NULL
    THEN s.starts_at IS NOT NULL OR (s.created_at, s.id) > ($8::timestamptz, $9::text)
    ELSE s.starts_at < $7::timestamptz
      OR (s.starts_at = $7::timestamptz AND (s.created_at, s.id) > ($8::timestamptz, $9::text)) END)`
	sessionOrderSQL        = `s.starts_at ASC NULLS LAST, s.created_at DESC, s.id DESC`
	sessionReverseOrderSQL = `s.starts_at DESC NULLS FIRST, s.created_at ASC, s.id ASC`

	// sessionRowsOfPageSQL reads the board's row of each session of the CTE page, with its
	// readiness counts, in the order %[1]s: the end of sessionPageSQL and of the events' pages
	// (sessionsPageSQL).
	sessionRowsOfPageSQL = `SELECT s.event_id, s.id, s.code, s.title, s.description, f.name, ` + manualSQL + `, s.starts_at, s.ends_at,
       s.room_id, r.name, s.content_review_status, s.approved_snapshot <> '{}'::jsonb, s.cancelled_at,
       s.cancelled_by, s.capacity, s.created_at,
       COALESCE(t.total, 0), COALESCE(t.done, 0), COALESCE(d.total, 0), COALESCE(d.uploaded, 0)
FROM page
JOIN submissions s ON s.id = page.id
LEFT JOIN formats f ON f.id = s.format_id
LEFT JOIN rooms r ON r.id = s.room_id
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE ta.status <> 'waived') AS total, count(*) FILTER (WHERE ta.status = 'done') AS done
  FROM task_assignments ta WHERE ta.submission_id = s.id) t ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS total, count(*) FILTER (WHERE da.status = 'uploaded') AS uploaded
  FROM deliverable_assignments da WHERE da.submission_id = s.id) d ON true
ORDER BY %[1]s`

	// sessionPageSQL chooses the page on the submissions alone ($10 rows, all when null), then
	// joins only those with their readiness counts. %s is the order: reversed for a page taken
	// from the end (last), which the caller turns around.
	sessionPageSQL = `
WITH page AS (
  SELECT s.id FROM submissions s
  WHERE ` + sessionScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `
  ORDER BY %[1]s LIMIT $10)
` + sessionRowsOfPageSQL

	// sessionAllSQL reads every session of sessionScopeSQL ($1-$3) at once, as the REST board does:
	// without a page to choose, the readiness counts are grouped once over the event's tasks and
	// deliverables and hash-joined, instead of aggregated per session in a nested loop (2,000
	// index lookups each).
	sessionAllSQL = `
SELECT s.event_id, s.id, s.code, s.title, s.description, f.name, ` + manualSQL + `, s.starts_at, s.ends_at,
       s.room_id, r.name, s.content_review_status, s.approved_snapshot <> '{}'::jsonb, s.cancelled_at,
       s.cancelled_by, s.capacity, s.created_at,
       COALESCE(t.total, 0), COALESCE(t.done, 0), COALESCE(d.total, 0), COALESCE(d.uploaded, 0)
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
LEFT JOIN rooms r ON r.id = s.room_id
LEFT JOIN (
  SELECT ta.submission_id, count(*) FILTER (WHERE ta.status <> 'waived') AS total, count(*) FILTER (WHERE ta.status = 'done') AS done
  FROM task_assignments ta JOIN submissions x ON x.id = ta.submission_id
  WHERE x.event_id = $1 AND x.status = 'accepted' GROUP BY ta.submission_id) t ON t.submission_id = s.id
LEFT JOIN (
  SELECT da.submission_id, count(*) AS total, count(*) FILTER (WHERE da.status = 'uploaded') AS uploaded
  FROM deliverable_assignments da JOIN submissions x ON x.id = da.submission_id
  WHERE x.event_id = $1 AND x.status = 'accepted' GROUP BY da.submission_id) d ON d.submission_id = s.id
WHERE ` + sessionScopeSQL + `
ORDER BY ` + sessionOrderSQL

	// sessionCountsSQL counts, over the same parameters, the sessions in the state (totalCount),
	// those between the cursors, those at or before the after cursor and those at or after the
	// before cursor — from which the page's position follows — and reads the format names and
	// tracks of all accepted sessions.
	sessionCountsSQL = `
SELECT count(*) FILTER (WHERE ` + sessionScopeSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND NOT ` + sessionAfterSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND NOT ` + sessionBeforeSQL + `),
       COALESCE(array_agg(DISTINCT f.name) FILTER (WHERE f.name IS NOT NULL), '{}'),
       (SELECT COALESCE(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                                 ORDER BY t.position, t.name, t.id), '[]')
        FROM tracks t
        WHERE EXISTS (SELECT 1 FROM submission_tracks st JOIN submissions a ON a.id = st.submission_id
                      WHERE st.track_id = t.id AND a.event_id = $1 AND a.status = 'accepted'))
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
WHERE s.event_id = $1 AND s.status = 'accepted'`

	// sessionTracksSQL and sessionSpeakersSQL read the tracks and speakers of the sessions $1; the
	// …ScopeSQL forms read those of every session of sessionScopeSQL ($1–$3), so that they can run
	// beside the page's statement instead of after it.
	sessionTracksSQL = `
SELECT st.submission_id, t.id, t.name, t.color
FROM submission_tracks st
JOIN tracks t ON t.id = st.track_id
WHERE st.submission_id = ANY($1)
ORDER BY t.position, t.name, t.id`
	sessionTracksScopeSQL = `
SELECT st.submission_id, t.id, t.name, t.color
FROM submissions s
JOIN submission_tracks st ON st.submission_id = s.id
JOIN tracks t ON t.id = st.track_id
WHERE ` + sessionScopeSQL + `
ORDER BY t.position, t.name, t.id`

	sessionSpeakersSQL = `
SELECT p.submission_id, c.id, c.first_name, c.last_name, c.email, p.role, p.position, c.headshot_url, c.confirmed_at
FROM submission_participants p
JOIN contacts c ON c.id = p.contact_id
WHERE p.submission_id = ANY($1)
ORDER BY p.submission_id, p.position, c.id`
	sessionSpeakersScopeSQL = `
SELECT p.submission_id, c.id, c.first_name, c.last_name, c.email, p.role, p.position, c.headshot_url, c.confirmed_at
FROM submissions s
JOIN submission_participants p ON p.submission_id = s.id
JOIN contacts c ON c.id = p.contact_id
WHERE ` + sessionScopeSQL + `
ORDER BY p.submission_id, p.position, c.id`
)

// sessionKey is a session's place in the list order; a cursor carries it.
type sessionKey struct {
	startsAt  *time.Time
	createdAt time.Time
	id        string
}

// keyOf is s's place in the list order.
func keyOf(s *model.Session) sessionKey {
	k := sessionKey{createdAt: s.CreatedAt.Time, id: s.ID}
	if s.StartsAt != nil {
		k.startsAt = &s.StartsAt.Time
	}
	return k
}

// sessionCursorVersion starts every session cursor, so that a cursor of another list or of an
// older format is refused instead of misread.
const sessionCursorVersion = "s1"

// cursor encodes k. Times are in microseconds, PostgreSQL's precision, so that the key compares
// equal to the stored row.
func (k sessionKey) cursor() ent.Cursor {
	starts := ""
	if k.startsAt != nil {
		starts = strconv.FormatInt(k.startsAt.UnixMicro(), 10)
	}
	return ent.Cursor{ID: strings.Join([]string{sessionCursorVersion, starts, strconv.FormatInt(k.createdAt.UnixMicro(), 10), k.id}, "|")}
}

// parseSessionCursor reads a cursor made by sessionKey.cursor.
func parseSessionCursor(c *entgql.Cursor[string]) (*sessionKey, error) {
	if c == nil {
		return nil, nil
	}
	invalid := apperr.Invalid("The cursor is not valid")
	parts := strings.Split(c.ID, "|")
	if len(parts) != 4 || parts[0] != sessionCursorVersion || !pid.Plausible(parts[3]) {
		return nil, invalid
	}
	k := &sessionKey{id: parts[3]}
	created, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return nil, invalid
	}
	k.createdAt = time.UnixMicro(created).UTC()
	if parts[1] != "" {
		starts, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return nil, invalid
		}
		at := time.UnixMicro(starts).UTC()
		k.startsAt = &at
	}
	return k, nil
}

// sessionQuery is what a read of the session list asks for.
type sessionQuery struct {
	eventID string
	// only names one session; "" for the list.
	only string
	// state is "", "active" or "cancelled".
	state         string
	after, before *sessionKey
	// limit caps the rows read; nil reads all.
	limit *int
	// fromEnd reads the last rows of the window instead of the first.
	fromEnd bool
}

// args are the SQL parameters of sessionPageSQL; sessionCountsSQL takes all but the last.
func (q sessionQuery) args() []any {
	key := func(k *sessionKey) (*time.Time, *time.Time, *string) {
		if k == nil {
			return nil, nil, nil
		}
		return k.startsAt, &k.createdAt, &k.id
	}
	a1, a2, a3 := key(q.after)
	b1, b2, b3 := key(q.before)
	var limit *int64
	if q.limit != nil {
		limit = new(int64(*q.limit))
	}
	return []any{q.eventID, q.only, q.state, a1, a2, a3, b1, b2, b3, limit}
}

// sessionPage reads the sessions of q, in list order, with their readiness, tracks and speakers;
// it also returns the distinct tracks of those sessions in track order (position, name, id).
//
// A read of the whole scope (no cursor, no limit: the REST board, a GraphQL board asking for all)
// outside a transaction sends the tracks and speakers statements at once with the page's, each on
// a connection of its own, selecting by the scope instead of by the page's ids: the three
// statements then cost PostgreSQL the longest of them in time instead of their sum.
func (r *Service) sessionPage(ctx context.Context, q sessionQuery) ([]*model.Session, []agenda.Track, error) {
	db := r.sql(ctx)
	order := sessionOrderSQL
	if q.fromEnd {
		order = sessionReverseOrderSQL
	}
	var links sessionLinks
	wait := func() error { return nil }
	pageSQL, args := fmt.Sprintf(sessionPageSQL, order), q.args()
	whole := q.limit == nil && q.after == nil && q.before == nil
	if whole && q.only == "" && !q.fromEnd {
		pageSQL, args = sessionAllSQL, args[:3]
	}
	if whole && dbx.TxFromContext(ctx) == nil {
		scope := q.args()[:3]
		var tracksErr, speakersErr error
		var done sync.WaitGroup
		done.Go(func() { links.tracks, tracksErr = readSessionTracks(ctx, db, sessionTracksScopeSQL, scope...) })
		done.Go(func() { links.speakers, speakersErr = readSessionSpeakers(ctx, db, sessionSpeakersScopeSQL, scope...) })
		wait = func() error {
			done.Wait()
			return errors.Join(tracksErr, speakersErr)
		}
	}
	sessions, err := readSessions(ctx, db, pageSQL, args)
	if werr := wait(); err == nil {
		err = werr
	}
	if err != nil {
		return nil, nil, err
	}
	if q.fromEnd {
		slices.Reverse(sessions)
	}
	if len(sessions) == 0 {
		return sessions, []agenda.Track{}, nil
	}
	if links.tracks == nil && links.speakers == nil {
		ids := make([]string, len(sessions))
		for i, s := range sessions {
			ids[i] = s.ID
		}
		if links.tracks, err = readSessionTracks(ctx, db, sessionTracksSQL, ids); err != nil {
			return nil, nil, err
		}
		if links.speakers, err = readSessionSpeakers(ctx, db, sessionSpeakersSQL, ids); err != nil {
			return nil, nil, err
		}
	}
	return sessions, links.attach(sessions), nil
}

// readSessions reads the rows of sessionPageSQL, sessionAllSQL or sessionsPageSQL.
func readSessions(ctx context.Context, db querier, sql string, args []any) ([]*model.Session, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*model.Session, error) {
		s := &model.Session{}
		var manual bool
		var startsAt, endsAt, cancelledAt *time.Time
		var createdAt time.Time
		var cancelledBy *string
		var status string
		if err := row.Scan(&s.EventID, &s.ID, &s.Code, &s.Title, &s.Description, &s.Format, &manual, &startsAt, &endsAt,
			&s.RoomID, &s.RoomName, &status, &s.PublicationApproved, &cancelledAt, &cancelledBy, &s.Capacity,
			&createdAt, &s.TasksTotal, &s.TasksDone, &s.DeliverablesTotal, &s.DeliverablesUploaded); err != nil {
			return nil, err
		}
		s.Source = sourceOf(manual)
		s.ContentReviewStatus = model.ContentReviewStatus(status)
		s.PublicationApproved = s.PublicationApproved && s.ContentReviewStatus == model.ContentReviewStatusApproved
		s.StartsAt, s.EndsAt, s.CancelledAt = scalar.AtPtr(startsAt), scalar.AtPtr(endsAt), scalar.AtPtr(cancelledAt)
		s.CreatedAt = scalar.At(createdAt)
		if cancelledBy != nil {
			s.CancelledBy = new(model.SessionCancelledBy(*cancelledBy))
		}
		return s, nil
	})
}

// sessionLinks are the tracks and speakers of sessions, as read, in the statements' order.
type sessionLinks struct {
	tracks   []sessionTrack
	speakers []sessionSpeaker
}

type sessionTrack struct {
	sessionID string
	track     agenda.Track
}

type sessionSpeaker struct {
	sessionID string
	speaker   model.SessionSpeaker
}

func readSessionTracks(ctx context.Context, db querier, sql string, args ...any) ([]sessionTrack, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := []sessionTrack{}
	var st sessionTrack
	_, err = pgx.ForEachRow(rows, []any{&st.sessionID, &st.track.ID, &st.track.Name, &st.track.Color}, func() error {
		out = append(out, st)
		return nil
	})
	return out, err
}

func readSessionSpeakers(ctx context.Context, db querier, sql string, args ...any) ([]sessionSpeaker, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := []sessionSpeaker{}
	var sid, first, last string
	var confirmedAt *time.Time
	var sp model.SessionSpeaker
	_, err = pgx.ForEachRow(rows, []any{&sid, &sp.ID, &first, &last, &sp.Email, &sp.Role, &sp.Position,
		&sp.HeadshotURL, &confirmedAt}, func() error {
		sp.Name = fullName(first, last)
		sp.ConfirmedAt = scalar.AtPtr(confirmedAt)
		out = append(out, sessionSpeaker{sessionID: sid, speaker: sp})
		sp.HeadshotURL = nil
		return nil
	})
	return out, err
}

// attach gives each session its tracks and speakers, in the statements' order, and returns the
// distinct tracks in track order.
func (l sessionLinks) attach(sessions []*model.Session) []agenda.Track {
	byID := make(map[string]*model.Session, len(sessions))
	for _, s := range sessions {
		byID[s.ID] = s
	}
	// Each session's slices are cut from one array per kind: a few allocations, not one per
	// session.
	nTracks, nSpeakers := map[string]int{}, map[string]int{}
	for _, t := range l.tracks {
		nTracks[t.sessionID]++
	}
	for _, sp := range l.speakers {
		nSpeakers[sp.sessionID]++
	}
	trackArr := make([]agenda.Track, len(l.tracks))
	speakerArr := make([]model.SessionSpeaker, len(l.speakers))
	speakerPtrs := make([]*model.SessionSpeaker, len(l.speakers))
	ti, si := 0, 0
	for _, s := range sessions {
		n := nTracks[s.ID]
		s.Tracks, ti = trackArr[ti:ti:ti+n], ti+n
		n = nSpeakers[s.ID]
		s.Speakers, si = speakerPtrs[si:si:si+n], si+n
	}
	tracks := []agenda.Track{}
	seen := map[string]bool{}
	for _, t := range l.tracks {
		s := byID[t.sessionID]
		if s == nil {
			continue // a session the page's snapshot did not hold
		}
		s.Tracks = append(s.Tracks, t.track)
		// The rows come in track order, so the first sight of each track keeps that order.
		if !seen[t.track.ID] {
			seen[t.track.ID] = true
			tracks = append(tracks, t.track)
		}
	}
	for i, sp := range l.speakers {
		if s := byID[sp.sessionID]; s != nil {
			speakerArr[i] = sp.speaker
			s.Speakers = append(s.Speakers, &speakerArr[i])
		}
	}
	return tracks
}

// sessionCounts is what sessionCountsSQL reads.
type sessionCounts struct {
	// total is totalCount; window the sessions between the cursors; beforeWindow and
	// afterWindow those cut off by the after and the before cursor.
	total, window, beforeWindow, afterWindow int
	formats                                  []string
	tracks                                   []agenda.Track
	// The page is window[lo:hi].
	lo, hi int
}

// pageRead is the largest first that sessionWindow treats as a page of a longer list: it reads
// the list's counts alongside the page's rows. A larger first is most often a read of the whole
// list, which needs no counts statement.
const pageRead = 100

// sessionWindow reads the page of q that first and last choose, and the list's counts.
//
// The page's rows do not depend on the counts: first becomes a LIMIT, last a LIMIT on the list
// read from its end, and the page's place in the window follows from the rows returned. So a
// page's counts statement runs on a connection of its own while the page is read (outside a
// transaction), and the page costs the longer of the two instead of their sum.
//
// When nothing narrows the list — no state, no cursor, no last — and the page turns out to hold
// all of it, the counts, formats and tracks follow from the page's own rows and the counts
// statement is not sent: the REST list and a GraphQL board asking for more than there is cost
// one statement less. To tell, a page of first sessions reads one row more than it shows.
func (r *Service) sessionWindow(ctx context.Context, q sessionQuery, first, last *int) ([]*model.Session, *sessionCounts, error) {
	whole := q.limitTo(first, last)

	var counts *sessionCounts
	var countsErr error
	wait := func() {}
	if !whole || (first != nil && *first <= pageRead) {
		if dbx.TxFromContext(ctx) == nil {
			done := make(chan struct{})
			go func() {
				defer close(done)
				counts, countsErr = r.sessionCounts(ctx, q)
			}()
			wait = func() { <-done }
		} else {
			counts, countsErr = r.sessionCounts(ctx, q)
		}
	}
	page, tracks, err := r.sessionPage(ctx, q)
	wait()
	if err != nil {
		return nil, nil, err
	}
	if whole && (first == nil || len(page) <= *first) {
		return page, pageCounts(page, tracks), nil
	}
	if whole {
		page = page[:*first]
	}
	if counts == nil && countsErr == nil {
		counts, countsErr = r.sessionCounts(ctx, q)
	}
	if countsErr != nil {
		return nil, nil, countsErr
	}
	return q.place(page, last, counts), counts, nil
}

// limitTo sets the limit and direction of q's read for first and last, and reports whether
// nothing narrows the list (no state, no cursor, no last): a page of first sessions then reads
// one row more than it shows, to tell whether it holds the whole list (pageCounts).
func (q *sessionQuery) limitTo(first, last *int) (whole bool) {
	whole = q.state == "" && q.after == nil && q.before == nil && last == nil
	switch {
	case first == nil && last != nil:
		q.fromEnd, q.limit = true, new(*last)
	case first != nil && whole:
		q.limit = new(*first + 1)
	case first != nil:
		q.limit = new(*first)
	}
	return whole
}

// pageCounts are the counts of a list that page holds whole, with tracks its distinct tracks.
func pageCounts(page []*model.Session, tracks []agenda.Track) *sessionCounts {
	n := len(page)
	return &sessionCounts{total: n, window: n, formats: formatsOf(page), tracks: tracks, hi: n}
}

// place returns the sessions of page that the connection shows, setting their place in the
// window, counts.lo and counts.hi: the page is window[lo:hi], first taking from the start of
// the window, then last from the end of what is left.
func (q sessionQuery) place(page []*model.Session, last *int, counts *sessionCounts) []*model.Session {
	if q.fromEnd {
		counts.hi = counts.window
		counts.lo = max(0, counts.window-len(page))
		return page
	}
	counts.hi = len(page)
	if last != nil {
		counts.lo = max(0, len(page)-*last)
		page = page[counts.lo:]
	}
	return page
}

// formatsOf is the distinct format names of sessions, sorted as the counts statement sorts them.
func formatsOf(sessions []*model.Session) []string {
	formats := []string{}
	seen := map[string]bool{}
	for _, s := range sessions {
		if s.Format != nil && !seen[*s.Format] {
			seen[*s.Format] = true
			formats = append(formats, *s.Format)
		}
	}
	sort.Strings(formats)
	return formats
}

func (r *Service) sessionCounts(ctx context.Context, q sessionQuery) (*sessionCounts, error) {
	var c sessionCounts
	var tracks []byte
	if err := r.sql(ctx).QueryRow(ctx, sessionCountsSQL, q.args()[:9]...).Scan(&c.total, &c.window, &c.beforeWindow,
		&c.afterWindow, &c.formats, &tracks); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(tracks, &c.tracks); err != nil {
		return nil, err
	}
	sort.Strings(c.formats)
	return &c, nil
}

func fullName(first, last string) string { return strings.TrimSpace(first + " " + last) }

// sessions answers Event.sessions: the list, filtered by state, as a connection (Relay cursor
// pagination). Without first and last every session is read, as REST lists them. Under a page of
// events the events' windows are read together (sessionWindowInList).
func (r *Service) Sessions(ctx context.Context, ev *ent.Event, state *model.SessionState, after *entgql.Cursor[string],
	first *int, before *entgql.Cursor[string], last *int) (*model.SessionConnection, error) {
	q := sessionQuery{eventID: ev.ID}
	if state != nil {
		q.state = string(*state)
	}
	var err error
	if q.after, err = parseSessionCursor(after); err != nil {
		return nil, err
	}
	if q.before, err = parseSessionCursor(before); err != nil {
		return nil, err
	}
	if first != nil && *first < 0 {
		return nil, apperr.Invalid("first must not be negative")
	}
	if last != nil && *last < 0 {
		return nil, apperr.Invalid("last must not be negative")
	}
	var page []*model.Session
	var counts *sessionCounts
	if underList(ctx) {
		page, counts, err = r.sessionWindowInList(ctx, ev.ID, q, first, last)
	} else {
		page, counts, err = r.sessionWindow(ctx, q, first, last)
	}
	if err != nil {
		return nil, err
	}
	conn := &model.SessionConnection{TotalCount: counts.total, Tracks: counts.tracks, Formats: counts.formats,
		Edges: make([]*model.SessionEdge, 0, len(page))}
	for _, s := range page {
		conn.Edges = append(conn.Edges, &model.SessionEdge{Node: s, Cursor: keyOf(s).cursor()})
	}
	if err := r.prefetchSessions(ctx, page); err != nil {
		return nil, err
	}
	conn.PageInfo.HasPreviousPage = counts.beforeWindow > 0 || counts.lo > 0
	conn.PageInfo.HasNextPage = counts.afterWindow > 0 || counts.hi < counts.window
	if len(conn.Edges) > 0 {
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[len(conn.Edges)-1].Cursor
	}
	return conn, nil
}

// session loads one session's read model.
func (r *Service) Session(ctx context.Context, eventID, id string) (*model.Session, error) {
	if !pid.Plausible(id) {
		return nil, errSessionNotFound
	}
	list, _, err := r.sessionPage(ctx, sessionQuery{eventID: eventID, only: id})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errSessionNotFound
	}
	return list[0], nil
}

// sessionEntity returns the accepted submission id of the event, locked for the transaction's
// update when forUpdate is set.
func sessionEntity(ctx context.Context, c *ent.Client, eventID, id string, forUpdate bool) (*ent.Submission, error) {
	if !pid.Plausible(id) {
		return nil, errSessionNotFound
	}
	q := c.Submission.Query().Where(submission.ID(id), submission.EventID(eventID), submission.StatusEQ(submission.StatusAccepted))
	if forUpdate {
		q = q.ForUpdate()
	}
	s, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errSessionNotFound
	}
	return s, err
}

// speakersOf checks a list of speaker ids: de-duplicated in order, at least one, every one a
// contact of the event.
func speakersOf(ctx context.Context, c *ent.Client, eventID string, ids []string, noneMessage string) ([]string, error) {
	speakers := unique(ids)
	if len(speakers) == 0 {
		return nil, apperr.Invalid("%s", noneMessage)
	}
	plausible := make([]string, 0, len(speakers))
	for _, id := range speakers {
		if pid.Plausible(id) {
			plausible = append(plausible, id)
		}
	}
	n, err := c.Contact.Query().Where(contact.IDIn(plausible...), contact.EventID(eventID)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n != len(speakers) {
		return nil, apperr.Forbidden("One or more speakers do not belong to this event")
	}
	return speakers, nil
}

// formatOf checks that formatID, when given, is a format of the event.
func formatOf(ctx context.Context, c *ent.Client, eventID string, formatID *string) error {
	if formatID == nil {
		return nil
	}
	ok, err := c.Format.Query().Where(format.ID(*formatID), format.EventID(eventID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok || !pid.Plausible(*formatID) {
		return apperr.Invalid("Choose a format from this event")
	}
	return nil
}

// nextNumber returns the next submission number of the event: 1 + the highest used, drafts
// included. The event's row is locked for the rest of the transaction (lockEvent), so numbers are
// never handed out twice.
func nextNumber(ctx context.Context, c *ent.Client, eventID string) (int, error) {
	if _, err := lockEvent(ctx, c, eventID); err != nil {
		return 0, err
	}
	var out []struct {
		Max *int `json:"max"`
	}
	err := c.Submission.Query().Where(submission.EventID(eventID)).
		Aggregate(ent.Max(submission.FieldNumber)).Scan(ctx, &out)
	if err != nil {
		return 0, err
	}
	if len(out) == 0 || out[0].Max == nil {
		return 1, nil
	}
	return *out[0].Max + 1, nil
}

// pendingNumbers is where the provisional numbers of sessions being created start (pendingNumber):
// far above any real number, so that numberSession's maximum ignores them.
const pendingNumbers = 1 << 52

// pendingNumber is the provisional number of the session id until numberSession numbers it, in
// the same transaction: unique in practice (the id's random bits), so that sessions created at
// once do not meet on the event's unique numbers — and were two to meet, the second would only
// wait for the first to commit, by which time the first holds its real number.
func pendingNumber(id string) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return pendingNumbers + int(h.Sum64()>>24)
}

// sessionCode is the code of the session numbered n.
func sessionCode(n int) string { return fmt.Sprintf("SESS-%d", n) }

// numberSessionSQL gives the session $2 of the event $1 its number and code: 1 + the highest number
// used, provisional numbers aside.
const numberSessionSQL = `UPDATE submissions SET number = m.n, code = 'SESS-' || m.n
FROM (SELECT COALESCE(MAX(number), 0) + 1 AS n FROM submissions WHERE event_id = $1 AND number < $3) m
WHERE id = $2 RETURNING m.n`

// numberSession numbers a session created in this transaction with a provisional number
// (pendingNumber), as nextNumber does: it locks the event for the rest of the transaction, which
// is then only the commit.
func (r *Service) numberSession(ctx context.Context, c *ent.Client, eventID, id string) (int, error) {
	if _, err := lockEvent(ctx, c, eventID); err != nil {
		return 0, err
	}
	var n int
	err := r.sql(ctx).QueryRow(ctx, numberSessionSQL, eventID, id, pendingNumbers).Scan(&n)
	return n, err
}

// snapshot is the content approved for publication (docs/rest-api.md: approvedSnapshot).
func snapshot(s *ent.Submission) map[string]any {
	answers := s.Answers
	if answers == nil {
		answers = map[string]any{}
	}
	return map[string]any{"title": s.Title, "description": s.Description, "formatId": s.FormatID,
		"levelId": s.LevelID, "language": s.Language, "answers": answers}
}

// createSession creates an accepted session without a submission (docs/rest-api.md: POST E/sessions).
func (r *Service) CreateSession(ctx context.Context, eventID string, in model.CreateSessionInput) (*model.SessionRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.SessionRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		title := strings.TrimSpace(in.Title)
		if title == "" {
			return nil, apperr.Invalid("Enter a session title")
		}
		speakers, err := speakersOf(ctx, c, ev.ID, in.SpeakerIds, "Every session must have a speaker")
		if err != nil {
			return nil, err
		}
		if err := formatOf(ctx, c, ev.ID, in.FormatID); err != nil {
			return nil, err
		}
		// Everything but the number is written before the event is locked: the lock serializes the
		// event's creations until commit, so the session is written with a provisional number and
		// code (pendingNumber) and numbered last (numberSession), two statements before the commit.
		id := pid.New("sub")
		if err := r.emit(ctx, hookSessionCreated, hookData{"eventId": ev.ID, "sessionId": id, "title": title}); err != nil {
			return nil, err
		}
		description := ""
		if in.Description != nil {
			description = *in.Description
		}
		s, err := c.Submission.Create().SetID(id).
			SetEventID(ev.ID).SetNumber(pendingNumber(id)).SetCode(id).
			SetStatus(submission.StatusAccepted).
			SetTitle(title).SetDescription(description).SetNillableFormatID(in.FormatID).
			SetSubmittedAt(time.Now()).SetAnswers(map[string]any{}).
			SetContentReviewStatus(submission.ContentReviewStatusApproved).
			SetApprovedSnapshot(snapshot(&ent.Submission{Title: title, Description: description, FormatID: in.FormatID,
				Language: "en"})).
			Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := setParticipants(ctx, c, s.ID, speakers, true); err != nil {
			return nil, err
		}
		if err := r.recordApprovedProfiles(ctx, ev.ID, speakers); err != nil {
			return nil, err
		}
		if _, err := r.assignReadiness(ctx, ev.ID, s.ID); err != nil {
			return nil, err
		}
		if s.Number, err = r.numberSession(ctx, c, ev.ID, s.ID); err != nil {
			return nil, err
		}
		s.Code = sessionCode(s.Number)
		return toSessionRecord(s), nil
	})
}

// setParticipants makes ids the speakers of a submission, in order (positions from 0); fresh says
// the submission was just created, with no participants to replace.
func setParticipants(ctx context.Context, c *ent.Client, submissionID string, ids []string, fresh bool) error {
	if !fresh {
		if _, err := c.SubmissionParticipant.Delete().Where(submissionparticipant.SubmissionID(submissionID)).Exec(ctx); err != nil {
			return err
		}
	}
	builders := make([]*ent.SubmissionParticipantCreate, len(ids))
	for i, id := range ids {
		builders[i] = c.SubmissionParticipant.Create().SetSubmissionID(submissionID).SetContactID(id).
			SetRole("speaker").SetPosition(i)
	}
	return c.SubmissionParticipant.CreateBulk(builders...).Exec(ctx)
}

// setSessionSpeakers replaces a session's speakers; speaker-scoped tasks and deliverables follow.
func (r *Service) SetSessionSpeakers(ctx context.Context, eventID, sessionID string, in model.SetSessionSpeakersInput) (*model.Session, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Session, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		s, err := sessionEntity(ctx, c, ev.ID, sessionID, true)
		if err != nil {
			return nil, err
		}
		speakers, err := speakersOf(ctx, c, ev.ID, in.SpeakerIds, "Every session must have a speaker")
		if err != nil {
			return nil, err
		}
		if err := setParticipants(ctx, c, s.ID, speakers, false); err != nil {
			return nil, err
		}
		if err := r.recordApprovedProfiles(ctx, ev.ID, speakers); err != nil {
			return nil, err
		}
		if err := r.dropLeftSpeakers(ctx, s.ID); err != nil {
			return nil, err
		}
		if _, err := r.assignReadiness(ctx, ev.ID, s.ID); err != nil {
			return nil, err
		}
		return r.Session(ctx, ev.ID, s.ID)
	})
}

func toSessionRecord(s *ent.Submission) *model.SessionRecord {
	rec := &model.SessionRecord{
		ID: s.ID, CreatedAt: scalar.At(s.CreatedAt), UpdatedAt: scalar.At(s.UpdatedAt), EventID: s.EventID,
		Code: s.Code, Status: model.SubmissionStatus(s.Status), SourceFormID: s.SourceFormID,
		SubmitterContactID: s.SubmitterContactID, Title: s.Title, Description: s.Description,
		FormatID: s.FormatID, LevelID: s.LevelID, Language: s.Language, StartsAt: scalar.AtPtr(s.StartsAt),
		EndsAt: scalar.AtPtr(s.EndsAt), RoomID: s.RoomID, IcsSequence: s.IcsSequence,
		ScheduleDirty: s.ScheduleDirty, Capacity: s.Capacity, CeuCredits: s.CeuCredits,
		ClientSessionID: s.ClientSessionID, NotifiedAt: scalar.AtPtr(s.NotifiedAt),
		SubmittedAt: scalar.AtPtr(s.SubmittedAt), Answers: s.Answers, ApprovedSnapshot: s.ApprovedSnapshot,
		ContentReviewStatus: model.ContentReviewStatus(s.ContentReviewStatus), CancelledAt: scalar.AtPtr(s.CancelledAt),
	}
	if rec.Answers == nil {
		rec.Answers = map[string]any{}
	}
	if rec.ApprovedSnapshot == nil {
		rec.ApprovedSnapshot = map[string]any{}
	}
	if s.CancelledBy != nil {
		rec.CancelledBy = new(model.SessionCancelledBy(*s.CancelledBy))
	}
	return rec
}

// speaker is a participant of a session, as emails need them.
type speaker struct {
	ContactID, Email, FirstName, LastName string
}

func participants(ctx context.Context, c *ent.Client, submissionIDs ...string) (map[string][]speaker, error) {
	rows, err := c.SubmissionParticipant.Query().
		Where(submissionparticipant.SubmissionIDIn(submissionIDs...)).
		Order(ent.Asc(submissionparticipant.FieldPosition)).
		WithContact().
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]speaker{}
	for _, p := range rows {
		ct := p.Edges.Contact
		out[p.SubmissionID] = append(out[p.SubmissionID], speaker{ct.ID, ct.Email, ct.FirstName, ct.LastName})
	}
	return out, nil
}

// invitesSent reports whether calendar invites of the session have gone out.
func invitesSent(ctx context.Context, c *ent.Client, sessionID string) (bool, error) {
	return c.EmailLog.Query().Where(emaillog.SubmissionID(sessionID), emaillog.TypeEQ(emaillog.TypeCalendarInvite)).Exist(ctx)
}

// calendarEntry describes a scheduled session for an ICS object.
func (r *Service) calendarEntry(ctx context.Context, c *ent.Client, s *ent.Submission, sequence int) (calendar.Session, error) {
	title, description := invitationContent(s.Title, s.Description, s.ApprovedSnapshot)
	entry := calendar.Session{ID: s.ID, Title: title, Description: description, StartsAt: *s.StartsAt,
		EndsAt: *s.EndsAt, Sequence: sequence, URL: r.Outbox.PublicURL + "/portal"}
	if s.RoomID != nil {
		room, err := c.Room.Get(ctx, *s.RoomID)
		if err != nil {
			return entry, err
		}
		entry.Room = room.Name
	}
	return entry, nil
}

// sessionChange starts a cancellation or reinstatement: it locks the session and says whether the
// speakers are told (notifySpeakers, default true) and whether their email carries a calendar
// update — only for a scheduled session whose invites had gone out.
func (r *Service) sessionChange(ctx context.Context, c *ent.Client, eventID, sessionID string, notifySpeakers *bool) (
	ev *ent.Event, s *ent.Submission, notify, withICS bool, err error) {
	if ev, err = access.Event(ctx, c, eventID); err != nil {
		return
	}
	if s, err = lockSubmission(ctx, c, ev.ID, sessionID, errSessionNotFound); err != nil {
		return
	}
	notify = notifySpeakers == nil || *notifySpeakers
	if notify && s.StartsAt != nil && s.EndsAt != nil {
		withICS, err = invitesSent(ctx, c, s.ID)
	}
	return
}

// cancelSession cancels a session: cancelledAt and cancelledBy set (the status stays accepted),
// open tasks waived, a timeline line, agendaDirty when it was scheduled, and a cancellation email
// per speaker unless notifySpeakers is false — with an ICS CANCEL when invites had gone out.
func (r *Service) CancelSession(ctx context.Context, eventID, sessionID string, in model.CancelSessionInput) (*model.CancelSessionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CancelSessionResult, error) {
		c := r.ClientOf(ctx)
		ev, s, notify, withICS, err := r.sessionChange(ctx, c, eventID, sessionID, in.NotifySpeakers)
		if err != nil {
			return nil, err
		}
		if s.Status != submission.StatusAccepted {
			return nil, apperr.Invalid("Only accepted sessions can be cancelled")
		}
		if s.CancelledAt != nil {
			return nil, apperr.Invalid("This session is already cancelled")
		}
		now := time.Now()
		u := s.Update().SetCancelledAt(now).SetCancelledBy(submission.CancelledBy(in.Cause))
		sequence := s.IcsSequence + 1
		if withICS {
			u.SetIcsSequence(sequence)
		}
		if s, err = u.Save(ctx); err != nil {
			return nil, err
		}
		waived, err := c.TaskAssignment.Update().
			Where(taskassignment.SubmissionID(s.ID), taskassignment.StatusEQ(taskassignment.StatusTodo)).
			SetStatus(taskassignment.StatusWaived).ClearCompletedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		label := "Session cancelled"
		if in.Cause == model.SessionCancelledBySpeaker {
			label = "Session cancelled by the speaker"
		}
		if err := record(ctx, c, timelineentry.KindCancelled, label, nil, s.ID); err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookSessionCancelled, hookData{"eventId": ev.ID, "sessionId": s.ID, "cause": in.Cause}); err != nil {
			return nil, err
		}
		if s.StartsAt != nil {
			if err := ev.Update().SetAgendaDirty(true).Exec(ctx); err != nil {
				return nil, err
			}
		}
		created := 0
		if notify {
			emails, err := r.sessionEmails(ctx, c, ev, s, emaillog.TypeCancelled, email.SessionCancelled, in.Message, withICS, sequence, calendar.Cancel)
			if err != nil {
				return nil, err
			}
			created = emails
		}
		return &model.CancelSessionResult{ID: s.ID, CancelledAt: scalar.At(now), CancelledBy: in.Cause,
			CreatedEmails: created, WaivedTasks: waived}, nil
	})
}

// sessionEmails queues one email per speaker of s, with an ICS object made by ics when withICS.
func (r *Service) sessionEmails(ctx context.Context, c *ent.Client, ev *ent.Event, s *ent.Submission, typ emaillog.Type,
	template string, message *string, withICS bool, sequence int,
	ics func(calendar.Session, calendar.Party, calendar.Party, time.Time) string) (int, error) {
	people, err := participants(ctx, c, s.ID)
	if err != nil {
		return 0, err
	}
	var entry calendar.Session
	if withICS {
		if entry, err = r.calendarEntry(ctx, c, s, sequence); err != nil {
			return 0, err
		}
	}
	msg := ""
	if message != nil {
		msg = *message
	}
	batch := make([]email.Email, 0, len(people[s.ID]))
	for _, p := range people[s.ID] {
		e := email.Email{EventID: ev.ID, ContactID: new(p.ContactID), SubmissionID: new(s.ID), Type: typ,
			To: p.Email, Template: template, Data: email.Data{EventName: ev.Name, FirstName: p.FirstName,
				Path: "/portal", SessionTitle: s.Title, Message: msg, Calendar: withICS}}
		if withICS {
			e.ICS = ics(entry, calendar.Party{Name: ev.Name}, calendar.Party{Name: fullName(p.FirstName, p.LastName), Email: p.Email}, time.Now())
			e.ICSSequence = new(sequence)
		}
		batch = append(batch, e)
	}
	rows, err := r.Outbox.Queue(ctx, batch...)
	return len(rows), err
}

// lockSubmission loads a submission of the event for update.
func lockSubmission(ctx context.Context, c *ent.Client, eventID, id string, notFound error) (*ent.Submission, error) {
	return findSubmission(ctx, c, eventID, id, notFound, true)
}

// findSubmission loads a submission of the event, answering notFound for anything else.
func findSubmission(ctx context.Context, c *ent.Client, eventID, id string, notFound error, forUpdate bool) (*ent.Submission, error) {
	if !pid.Plausible(id) {
		return nil, notFound
	}
	q := c.Submission.Query().Where(submission.ID(id), submission.EventID(eventID))
	if forUpdate {
		q = q.ForUpdate()
	}
	s, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	return s, err
}

// reinstateSession undoes a cancellation: waived tasks reopen, speakers get a reinstatement email
// — with a fresh ICS REQUEST when the session is scheduled and invites had gone out; otherwise a
// scheduled session is marked as owing a fresh invite.
func (r *Service) ReinstateSession(ctx context.Context, eventID, sessionID string, in model.ReinstateSessionInput) (*model.ReinstateSessionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReinstateSessionResult, error) {
		c := r.ClientOf(ctx)
		ev, s, notify, withICS, err := r.sessionChange(ctx, c, eventID, sessionID, in.NotifySpeakers)
		if err != nil {
			return nil, err
		}
		if s.CancelledAt == nil {
			return nil, apperr.Invalid("This session is not cancelled")
		}
		sequence := s.IcsSequence + 1
		u := s.Update().ClearCancelledAt().ClearCancelledBy()
		switch {
		case withICS:
			u.SetIcsSequence(sequence).SetScheduleDirty(false)
		case s.StartsAt != nil:
			u.SetScheduleDirty(true)
		}
		if s, err = u.Save(ctx); err != nil {
			return nil, err
		}
		reopened, err := c.TaskAssignment.Update().
			Where(taskassignment.SubmissionID(s.ID), taskassignment.StatusEQ(taskassignment.StatusWaived)).
			SetStatus(taskassignment.StatusTodo).ClearCompletedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := record(ctx, c, timelineentry.KindReinstated, "Session reinstated", nil, s.ID); err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookSessionReinstated, hookData{"eventId": ev.ID, "sessionId": s.ID}); err != nil {
			return nil, err
		}
		if s.StartsAt != nil {
			if err := ev.Update().SetAgendaDirty(true).Exec(ctx); err != nil {
				return nil, err
			}
		}
		created := 0
		if notify {
			if created, err = r.sessionEmails(ctx, c, ev, s, emaillog.TypeReinstated, email.SessionReinstated, in.Message, withICS, sequence, calendar.Request); err != nil {
				return nil, err
			}
		}
		return &model.ReinstateSessionResult{ID: s.ID, ReopenedTasks: reopened, CreatedEmails: created, CalendarReinvited: withICS}, nil
	})
}

// deleteSession removes a manual session and what hangs off it; sessions from submissions keep
// their history and are cancelled instead.
func (r *Service) DeleteSession(ctx context.Context, eventID, sessionID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		s, err := lockSubmission(ctx, c, ev.ID, sessionID, errSessionNotFound)
		if err != nil {
			return "", err
		}
		if !isManual(s) || s.Status != submission.StatusAccepted {
			return "", apperr.Invalid("This session came from a submission and keeps its history — cancel it instead")
		}
		if err := c.Submission.DeleteOne(s).Exec(ctx); err != nil {
			return "", err
		}
		if err := r.emit(ctx, hookSessionDeleted, hookData{"eventId": ev.ID, "sessionId": s.ID}); err != nil {
			return "", err
		}
		return s.ID, nil
	})
}

// sessionContacts answers Session.contacts: the speakers' contact records, in speaking order.
func (r *Service) SessionContacts(ctx context.Context, s *model.Session) ([]*ent.Contact, error) {
	ids := make([]string, len(s.Speakers))
	for i, sp := range s.Speakers {
		ids[i] = sp.ID
	}
	return r.loaders(ctx).contacts.LoadAll(ctx, ids)
}

// sessionSubmission answers Session.submission.
func (r *Service) SessionSubmission(ctx context.Context, s *model.Session) (*model.Submission, error) {
	return r.loaders(ctx).submissions.Load(ctx, eventItem{s.EventID, s.ID})
}

// roundReviews answers Submission.roundReviews: every review assignment of the submission, in all
// rounds, with its answers.
func (r *Service) RoundReviews(ctx context.Context, submissionID string) ([]*model.HumanReview, error) {
	return r.loaders(ctx).roundReviews.Load(ctx, submissionID)
}
