// Package solver checks, repairs and makes agenda proposals (docs/agenda-drafts.md): placements of
// an event's active sessions in rooms and slots that break no schedule rule and double-book no
// room or speaker. It knows nothing of the database; the operation layer loads the agenda into an
// Input and stores what comes back.
//
// The schedule rules of a single slot (Event.CheckSlot) are the ones every schedule change obeys,
// the organizer's included; a draft's placements obey stricter ones besides (starts and ends on
// 5-minute marks, the draft's daily window inside 08:00–19:00 local time, the session's exact
// duration, the criteria's days and rooms, no block of the room or of every room, the speakers'
// availability). A session no legal slot is left for is left unplaced, with the reason.
package solver

import (
	"cmp"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Errors of a single slot, shared with the organizer's own schedule changes.
var (
	ErrEndBeforeStart = errors.New("End time must be after start time")
	ErrOutsideEvent   = errors.New("Keep the session within one event day")
)

// ErrNoSlots says the criteria leave some session no legal slot: the proposal cannot be made.
var ErrNoSlots = errors.New("These criteria do not have enough legal slots")

// ErrDeadline says the input's Deadline passed before the proposal was made.
var ErrDeadline = errors.New("solver: the deadline passed")

// Event is what the rules need of the event: its time zone and its first and last local days.
type Event struct {
	Location          *time.Location
	FirstDay, LastDay string
}

// EventOf describes an event in the time zone tz (UTC when tz is not a zone) from its start and end.
func EventOf(tz string, starts, ends time.Time) Event {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	return Event{Location: loc, FirstDay: starts.In(loc).Format(time.DateOnly), LastDay: ends.In(loc).Format(time.DateOnly)}
}

// Day is the local date of t in the event's time zone.
func (e Event) Day(t time.Time) string { return t.In(e.Location).Format(time.DateOnly) }

// CheckSlot is the rule of every schedule change: the end after the start, both on the same local
// day, and that day one of the event's.
func (e Event) CheckSlot(start, end time.Time) error {
	if !end.After(start) {
		return ErrEndBeforeStart
	}
	day := e.Day(start)
	if day != e.Day(end) || day < e.FirstDay || day > e.LastDay {
		return ErrOutsideEvent
	}
	return nil
}

// Room is a room of the event.
type Room struct {
	ID, Name string
	Position int
}

// Slot is a room and a time.
type Slot struct {
	RoomID           string
	StartsAt, EndsAt time.Time
}

// Session is an active session to place.
type Session struct {
	ID, Code string
	// Format is the format's name, "" without one.
	Format string
	// Duration is the current slot's length when scheduled, else the format's duration.
	Duration time.Duration
	// Tracks and Speakers are ids, tracks in position order.
	Tracks, Speakers []string
	// Current is the live slot; nil unless room, start and end are all set.
	Current *Slot
}

// Criteria are the draft's criteria.
type Criteria struct {
	Days, RoomIDs             []string
	RespectExistingPlacements bool
	Rules                     []string
	// DayStart and DayEnd are the daily window, in minutes after local midnight; zero means the
	// canvas's edge (08:00, 19:00).
	DayStart, DayEnd int
}

// Block is a blackout window: no session in its room — in any room when RoomID is "" — may
// overlap it.
type Block struct {
	ID, RoomID       string
	StartsAt, EndsAt time.Time
}

// Availability is a stretch of time a speaker can speak. A speaker with none is available
// throughout; one with some only within them (stretches that touch make one).
type Availability struct {
	SpeakerID        string
	StartsAt, EndsAt time.Time
}

// Input is everything a proposal is made from.
type Input struct {
	Event        Event
	Rooms        []Room
	Sessions     []Session
	Criteria     Criteria
	Blocks       []Block
	Availability []Availability
	// Deadline, when set, is when the work stops with ErrDeadline instead of an outcome.
	Deadline time.Time
}

// Proposed is a placement as a provider proposed it: ids and times not yet checked.
type Proposed struct {
	SubmissionID, RoomID, StartsAt, EndsAt, Reason string
}

// Placement is a checked placement.
type Placement struct {
	SubmissionID string
	Slot
	Reason string
}

// Unplaced is a session left without a placement, and why.
type Unplaced struct {
	SubmissionID, Reason string
}

// Outcome is a proposal and what it took to make it.
type Outcome struct {
	// Placements has one placement per active session that has a legal slot, by start then room.
	Placements []Placement
	// Unplaced has the other sessions, by code.
	Unplaced []Unplaced
	// Repaired counts sessions the provider left out, placed illegally or in conflict, which the
	// solver placed instead; Ignored counts proposed placements of unknown or repeated sessions.
	Repaired, Ignored int
}

// Reasons of the solver's own placements.
const (
	reasonKept      = "Kept existing placement."
	reasonDefault   = "Conflict-free placement."
	reasonRepaired  = "Repaired by validation gate: earliest conflict-free slot."
	reasonEarliest  = "Earliest conflict-free slot, interleaved by track."
	maxReasonLength = 180
)

// Reasons a session is left unplaced.
const (
	ReasonNotOnMarks   = "Left unplaced: its length is not a multiple of 5 minutes."
	ReasonTooLong      = "Left unplaced: it is longer than the daily window."
	ReasonUnavailable  = "Left unplaced: its speakers' availability leaves no slot in the daily window of the chosen days."
	ReasonNoFreeSlot   = "Left unplaced: blocks and other sessions leave no conflict-free slot on the chosen days and rooms."
	reasonNoRoomForKey = "Left unplaced: no conflict-free slot in the keynote room the rules ask for."
)

// The canvas of every day, 08:00 to 19:00, and its grid: starts and ends on 5-minute marks.
const (
	CanvasStart = 8 * 60
	CanvasEnd   = 19 * 60
	noon        = 12 * 60
	Mark        = 5
)

// CheckWindow is the rule of a daily window: minutes after local midnight on 5-minute marks,
// inside the canvas, the start before the end.
func CheckWindow(start, end int) error {
	switch {
	case start%Mark != 0 || end%Mark != 0:
		return ErrWindowMarks
	case start < CanvasStart || end > CanvasEnd:
		return ErrWindowCanvas
	case start >= end:
		return ErrWindowOrder
	}
	return nil
}

// Errors of a daily window.
var (
	ErrWindowMarks  = errors.New("Give the daily window on 5-minute marks (minutes after midnight, such as 540 for 09:00)")
	ErrWindowCanvas = errors.New("Keep the daily window between 08:00 (480) and 19:00 (1140)")
	ErrWindowOrder  = errors.New("Start the daily window before it ends")
)

// Solve makes a proposal from nothing: every session placed by the solver (or kept, when the
// criteria say so).
func Solve(in Input) (Outcome, error) { return build(in, nil, false) }

// Repair checks a provider's proposal: legal placements are kept, and every session the provider
// left out, placed illegally or in conflict is placed by the solver. It fails only when some
// session has no legal slot left.
func Repair(in Input, proposed []Proposed) (Outcome, error) { return build(in, proposed, true) }

// board is the placements accepted so far.
type board struct {
	in       Input
	rooms    map[string]Room
	sessions map[string]*Session
	placed   []Placement
	// dayStart and dayEnd are the daily window; available the speakers' merged availability.
	dayStart, dayEnd int
	available        map[string][]span
}

// span is a stretch of time, start inclusive, end exclusive.
type span struct{ start, end time.Time }

func build(in Input, proposed []Proposed, repairing bool) (Outcome, error) {
	var out Outcome
	if len(in.Criteria.Days) == 0 || len(in.Criteria.RoomIDs) == 0 {
		return out, ErrNoSlots
	}
	b := &board{in: in, rooms: map[string]Room{}, sessions: map[string]*Session{}, dayStart: in.Criteria.DayStart,
		dayEnd: in.Criteria.DayEnd, available: merge(in.Availability)}
	if b.dayStart == 0 {
		b.dayStart = CanvasStart
	}
	if b.dayEnd == 0 {
		b.dayEnd = CanvasEnd
	}
	if CheckWindow(b.dayStart, b.dayEnd) != nil {
		return out, ErrNoSlots
	}
	for _, rm := range in.Rooms {
		b.rooms[rm.ID] = rm
	}
	for i := range in.Sessions {
		b.sessions[in.Sessions[i].ID] = &in.Sessions[i]
	}
	byID := map[string]Proposed{}
	for _, p := range proposed {
		if _, known := b.sessions[p.SubmissionID]; !known {
			out.Ignored++
			continue
		}
		if _, dup := byID[p.SubmissionID]; dup {
			out.Ignored++
			continue
		}
		byID[p.SubmissionID] = p
	}
	kept := func(s *Session) bool { return in.Criteria.RespectExistingPlacements && s.Current != nil }
	order := make([]*Session, 0, len(in.Sessions))
	for i := range in.Sessions {
		order = append(order, &in.Sessions[i])
	}
	slices.SortStableFunc(order, func(x, y *Session) int {
		kx, ky := kept(x), kept(y)
		if kx != ky {
			if kx {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.Code, y.Code)
	})
	var deferred []*Session
	for _, s := range order {
		var want *Placement
		outside := false
		switch p, ok := byID[s.ID]; {
		case kept(s):
			want, outside = &Placement{SubmissionID: s.ID, Slot: *s.Current, Reason: reasonKept}, true
		case ok:
			want = parseProposed(p)
		}
		if want != nil && b.legal(s, want.Slot, outside) {
			want.Reason = normalizeReason(want.Reason)
			b.placed = append(b.placed, *want)
			continue
		}
		if repairing && !kept(s) {
			out.Repaired++
		}
		deferred = append(deferred, s)
	}
	for i, s := range interleave(deferred) {
		if i%16 == 0 && !in.Deadline.IsZero() && time.Now().After(in.Deadline) {
			return Outcome{}, ErrDeadline
		}
		p, reason := b.find(s, repairing)
		if reason != "" {
			out.Unplaced = append(out.Unplaced, Unplaced{SubmissionID: s.ID, Reason: reason})
			continue
		}
		b.placed = append(b.placed, p)
	}
	if len(b.placed)+len(out.Unplaced) != len(in.Sessions) {
		return Outcome{}, ErrNoSlots
	}
	slices.SortStableFunc(out.Unplaced, func(x, y Unplaced) int {
		return cmp.Compare(b.sessions[x.SubmissionID].Code, b.sessions[y.SubmissionID].Code)
	})
	slices.SortStableFunc(b.placed, func(x, y Placement) int {
		return cmp.Or(x.StartsAt.Compare(y.StartsAt), cmp.Compare(x.RoomID, y.RoomID))
	})
	out.Placements = b.placed
	return out, nil
}

// parseProposed reads a provider's placement; times that are not ISO 8601 make it illegal (nil).
func parseProposed(p Proposed) *Placement {
	start, err1 := time.Parse(time.RFC3339Nano, strings.TrimSpace(p.StartsAt))
	end, err2 := time.Parse(time.RFC3339Nano, strings.TrimSpace(p.EndsAt))
	if err1 != nil || err2 != nil {
		return nil
	}
	return &Placement{SubmissionID: p.SubmissionID, Slot: Slot{RoomID: p.RoomID, StartsAt: start.UTC(), EndsAt: end.UTC()},
		Reason: p.Reason}
}

// normalizeReason trims and collapses whitespace, cuts to 180 characters, and fills in a blank.
func normalizeReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxReasonLength {
		s = string(r[:maxReasonLength])
	}
	if s == "" {
		return reasonDefault
	}
	return s
}

// legal says whether slot is a legal placement of s among those accepted so far. A kept live
// placement (outside) may use any room, day and time of the canvas; any other must use the
// criteria's rooms, days and daily window.
func (b *board) legal(s *Session, slot Slot, outside bool) bool {
	if !b.fits(s, slot, outside) {
		return false
	}
	return b.free(s, slot) && !b.conflicts(s, slot)
}

// fits says whether slot obeys the rules of a placement of s that do not depend on the others:
// room, day, grid, window, length and the speakers' availability.
func (b *board) fits(s *Session, slot Slot, outside bool) bool {
	rm, ok := b.rooms[slot.RoomID]
	if !ok || (!outside && !slices.Contains(b.in.Criteria.RoomIDs, rm.ID)) {
		return false
	}
	ev := b.in.Event
	if ev.CheckSlot(slot.StartsAt, slot.EndsAt) != nil {
		return false
	}
	length := slot.EndsAt.Sub(slot.StartsAt)
	if length%(5*time.Minute) != 0 || length != s.Duration {
		return false
	}
	start, end := slot.StartsAt.In(ev.Location), slot.EndsAt.In(ev.Location)
	if start.Second() != 0 || start.Nanosecond() != 0 || end.Second() != 0 || end.Nanosecond() != 0 {
		return false
	}
	opens, closes := b.dayStart, b.dayEnd
	if outside {
		opens, closes = CanvasStart, CanvasEnd
	}
	if start.Minute()%Mark != 0 || end.Minute()%Mark != 0 || minuteOfDay(start) < opens || minuteOfDay(end) > closes {
		return false
	}
	if !outside && !slices.Contains(b.in.Criteria.Days, ev.Day(slot.StartsAt)) {
		return false
	}
	return b.availableFor(s, slot)
}

// availableFor says whether every speaker of s with availability is available throughout slot.
func (b *board) availableFor(s *Session, slot Slot) bool {
	for _, sp := range s.Speakers {
		spans, limited := b.available[sp]
		if limited && !slices.ContainsFunc(spans, func(w span) bool {
			return !w.start.After(slot.StartsAt) && !w.end.Before(slot.EndsAt)
		}) {
			return false
		}
	}
	return true
}

// free says whether slot overlaps no block of its room or of every room.
func (b *board) free(_ *Session, slot Slot) bool {
	for _, bl := range b.in.Blocks {
		if (bl.RoomID == "" || bl.RoomID == slot.RoomID) && slot.StartsAt.Before(bl.EndsAt) && slot.EndsAt.After(bl.StartsAt) {
			return false
		}
	}
	return true
}

// merge merges each speaker's availability into sorted, disjoint spans.
func merge(rows []Availability) map[string][]span {
	by := map[string][]span{}
	for _, r := range rows {
		if r.EndsAt.After(r.StartsAt) {
			by[r.SpeakerID] = append(by[r.SpeakerID], span{r.StartsAt, r.EndsAt})
		} else if _, ok := by[r.SpeakerID]; !ok {
			by[r.SpeakerID] = nil
		}
	}
	for id, spans := range by {
		slices.SortFunc(spans, func(x, y span) int { return x.start.Compare(y.start) })
		var merged []span
		for _, w := range spans {
			if n := len(merged); n > 0 && !w.start.After(merged[n-1].end) {
				if w.end.After(merged[n-1].end) {
					merged[n-1].end = w.end
				}
				continue
			}
			merged = append(merged, w)
		}
		by[id] = merged
	}
	return by
}

func minuteOfDay(t time.Time) int { return t.Hour()*60 + t.Minute() }

// conflicts says whether slot overlaps a placed session in the same room or with a shared speaker.
// Touching ends do not overlap.
func (b *board) conflicts(s *Session, slot Slot) bool {
	for _, p := range b.placed {
		if !(slot.StartsAt.Before(p.EndsAt) && slot.EndsAt.After(p.StartsAt)) {
			continue
		}
		if p.RoomID == slot.RoomID {
			return true
		}
		other := b.sessions[p.SubmissionID]
		for _, sp := range s.Speakers {
			if slices.Contains(other.Speakers, sp) {
				return true
			}
		}
	}
	return false
}

// formatWeight orders deferred sessions: keynotes, workshops, talks, lightning talks, the rest.
func formatWeight(format string) int {
	f := strings.ToLower(format)
	for i, word := range []string{"keynote", "workshop", "talk", "lightning"} {
		if strings.Contains(f, word) {
			return i
		}
	}
	return 4
}

// interleave orders deferred sessions by format weight and, within a weight, round-robin over
// their first tracks, so that one track does not take every early slot.
func interleave(sessions []*Session) []*Session {
	out := make([]*Session, 0, len(sessions))
	for weight := range 5 {
		var group []*Session
		for _, s := range sessions {
			if formatWeight(s.Format) == weight {
				group = append(group, s)
			}
		}
		slices.SortStableFunc(group, func(x, y *Session) int { return cmp.Compare(x.Code, y.Code) })
		queues := map[string][]*Session{}
		for _, s := range group {
			track := "untracked"
			if len(s.Tracks) > 0 {
				track = s.Tracks[0]
			}
			queues[track] = append(queues[track], s)
		}
		tracks := make([]string, 0, len(queues))
		for t := range queues {
			tracks = append(tracks, t)
		}
		slices.Sort(tracks)
		for len(out) < len(sessions) {
			moved := false
			for _, t := range tracks {
				if q := queues[t]; len(q) > 0 {
					out, queues[t], moved = append(out, q[0]), q[1:], true
				}
			}
			if !moved {
				break
			}
		}
	}
	return out
}

// Rules the solver understands in the criteria's free text.
var (
	keynoteRoomRule    = regexp.MustCompile(`(?i)keynotes?.*?\bin\s+(.+?)(?:\s+(?:morning|afternoon|evening)\b|$)`)
	keynoteMorningRule = regexp.MustCompile(`(?i)keynotes?.*morning`)
	workshopAfterRule  = regexp.MustCompile(`(?i)no workshops? before\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?`)
	spreadTrackRule    = regexp.MustCompile(`(?i)spread\s+(?:each\s+)?track`)
)

// find places s in the earliest legal slot: day by day, start by start (every 5 minutes of the
// daily window), room by room. When there is none it says why.
func (b *board) find(s *Session, repairing bool) (Placement, string) {
	crit := b.in.Criteria
	var rooms []Room
	for _, id := range unique(crit.RoomIDs) {
		if rm, ok := b.rooms[id]; ok {
			rooms = append(rooms, rm)
		}
	}
	slices.SortStableFunc(rooms, func(x, y Room) int { return cmp.Compare(x.Position, y.Position) })
	weight := formatWeight(s.Format)
	keynote, workshop := weight == 0, weight == 1
	var preferred *Room
	morning := false
	if keynote {
		for _, rule := range crit.Rules {
			if m := keynoteRoomRule.FindStringSubmatch(rule); m != nil && preferred == nil {
				for _, rm := range rooms {
					if strings.EqualFold(strings.TrimSpace(m[1]), rm.Name) {
						preferred = &rm
						break
					}
				}
			}
			morning = morning || keynoteMorningRule.MatchString(rule)
		}
		if preferred != nil {
			rooms = []Room{*preferred}
		}
	}
	minutes := int(s.Duration / time.Minute)
	switch {
	case s.Duration%(Mark*time.Minute) != 0:
		return Placement{}, ReasonNotOnMarks
	case minutes > b.dayEnd-b.dayStart:
		return Placement{}, ReasonTooLong
	}
	earliest, latest := b.dayStart, b.dayEnd-minutes
	if workshop {
		for _, rule := range crit.Rules {
			if at, ok := workshopAfter(rule); ok {
				earliest = max(earliest, (at+Mark-1)/Mark*Mark)
				break
			}
		}
	}
	if keynote && morning {
		latest = min(noon-minutes, latest)
	}
	days := slices.Clone(unique(crit.Days))
	slices.Sort(days)
	if len(s.Tracks) > 0 && slices.ContainsFunc(crit.Rules, spreadTrackRule.MatchString) {
		load := map[string]int{}
		for _, p := range b.placed {
			other := b.sessions[p.SubmissionID]
			if slices.ContainsFunc(other.Tracks, func(t string) bool { return slices.Contains(s.Tracks, t) }) {
				load[b.in.Event.Day(p.StartsAt)]++
			}
		}
		slices.SortStableFunc(days, func(x, y string) int { return cmp.Compare(load[x], load[y]) })
	}
	loc := b.in.Event.Location
	fits := false
	for _, day := range days {
		date, err := time.ParseInLocation(time.DateOnly, day, loc)
		if err != nil {
			continue
		}
		for m := earliest; m <= latest; m += Mark {
			start := time.Date(date.Year(), date.Month(), date.Day(), m/60, m%60, 0, 0, loc).UTC()
			for _, rm := range rooms {
				slot := Slot{RoomID: rm.ID, StartsAt: start, EndsAt: start.Add(s.Duration)}
				if !b.fits(s, slot, false) {
					continue
				}
				fits = true
				if b.free(s, slot) && !b.conflicts(s, slot) {
					return Placement{SubmissionID: s.ID, Slot: slot,
						Reason: reasonFor(repairing, preferred != nil && morning, rm.Name, workshop, earliest, b.dayStart)}, ""
				}
			}
		}
	}
	limited := slices.ContainsFunc(s.Speakers, func(sp string) bool { _, ok := b.available[sp]; return ok })
	switch {
	case !fits && limited:
		return Placement{}, ReasonUnavailable
	case preferred != nil:
		return Placement{}, reasonNoRoomForKey
	}
	return Placement{}, ReasonNoFreeSlot
}

// workshopAfter reads "no workshops before 10", "… before 1:30 pm" as minutes of the day.
func workshopAfter(rule string) (int, bool) {
	m := workshopAfterRule.FindStringSubmatch(rule)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.Atoi(m[1])
	minute := 0
	if m[2] != "" {
		minute, _ = strconv.Atoi(m[2])
	}
	switch strings.ToLower(m[3]) {
	case "pm":
		if h < 12 {
			h += 12
		}
	case "am":
		if h == 12 {
			h = 0
		}
	}
	return h*60 + minute, true
}

func reasonFor(repairing, keynoteMorning bool, room string, workshop bool, earliest, dayStart int) string {
	switch {
	case repairing:
		return reasonRepaired
	case keynoteMorning:
		return "Keynote placed in " + room + " in the morning."
	case workshop && earliest > dayStart:
		return "Workshop placed after " + strconv.Itoa(earliest/60) + ":" + twoDigits(earliest%60) + "."
	default:
		return reasonEarliest
	}
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func unique(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
