package operation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
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
			&createdAt, &s.DecisionSent, &s.TasksTotal, &s.TasksDone, &s.DeliverablesTotal, &s.DeliverablesUploaded); err != nil {
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

// sessionTrack and sessionSpeaker are a track and a speaker of the session sessionID.
type (
	sessionTrack   = ofSession[agenda.Track]
	sessionSpeaker = ofSession[model.SessionSpeaker]
)

// ofSession is a row of a session's links: v belongs to the session sessionID.
type ofSession[T any] struct {
	sessionID string
	v         T
}

func readSessionTracks(ctx context.Context, db querier, sql string, args ...any) ([]sessionTrack, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := []sessionTrack{}
	var st sessionTrack
	_, err = pgx.ForEachRow(rows, []any{&st.sessionID, &st.v.ID, &st.v.Name, &st.v.Color}, func() error {
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
		out = append(out, sessionSpeaker{sessionID: sid, v: sp})
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
		s.Tracks = append(s.Tracks, t.v)
		// The rows come in track order, so the first sight of each track keeps that order.
		if !seen[t.v.ID] {
			seen[t.v.ID] = true
			tracks = append(tracks, t.v)
		}
	}
	for i, sp := range l.speakers {
		if s := byID[sp.sessionID]; s != nil {
			speakerArr[i] = sp.v
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

// Sessions answers Event.sessions: the list, filtered by state, as a connection (Relay cursor
// pagination). Without first and last every session is read, as REST lists them. Under a page of
// events the events' windows are read together (sessionWindowInList).
func (r *Service) Sessions(ctx context.Context, ev *ent.Event, state *model.SessionState, window Page) (*model.SessionConnection, error) {
	after, first, before, last := window.After, window.First, window.Before, window.Last
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

// Session loads one session's read model.
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

// SessionSubmission answers Session.submission.
func (r *Service) SessionSubmission(ctx context.Context, s *model.Session) (*model.Submission, error) {
	return r.loaders(ctx).submissions.Load(ctx, eventItem{s.EventID, s.ID})
}
