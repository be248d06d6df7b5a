// Package solver checks, repairs and makes agenda proposals (docs/agenda-drafts.md): placements of
// an event's active sessions in rooms and slots that break no schedule rule and double-book no
// room or speaker. It knows nothing of the database; the operation layer loads the agenda into an
// Input and stores what comes back.
//
// The schedule rules of a single slot (Event.CheckSlot) are the ones every schedule change obeys,
// the organizer's included; a draft's placements obey stricter ones besides (a 15-minute grid,
// 08:00–19:00 local time, the session's exact duration, the criteria's days and rooms).
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
}

// Input is everything a proposal is made from.
type Input struct {
	Event    Event
	Rooms    []Room
	Sessions []Session
	Criteria Criteria
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

// Outcome is a proposal and what it took to make it.
type Outcome struct {
	// Placements has one placement per active session, by start then room.
	Placements []Placement
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

// The day's grid: starts every 15 minutes from 08:00, ends by 19:00.
const (
	dayOpens  = 8 * 60
	dayCloses = 19 * 60
	noon      = 12 * 60
	startStep = 15
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
}

func build(in Input, proposed []Proposed, repairing bool) (Outcome, error) {
	var out Outcome
	if len(in.Criteria.Days) == 0 || len(in.Criteria.RoomIDs) == 0 {
		return out, ErrNoSlots
	}
	b := &board{in: in, rooms: map[string]Room{}, sessions: map[string]*Session{}}
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
	for _, s := range interleave(deferred) {
		p, ok := b.find(s, repairing)
		if !ok {
			return Outcome{}, ErrNoSlots
		}
		b.placed = append(b.placed, p)
	}
	if len(b.placed) != len(in.Sessions) {
		return Outcome{}, ErrNoSlots
	}
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
// placement (outside) may use any room and day of the event; any other must use the criteria's.
func (b *board) legal(s *Session, slot Slot, outside bool) bool {
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
	if start.Minute()%startStep != 0 || end.Minute()%5 != 0 || minuteOfDay(start) < dayOpens || minuteOfDay(end) > dayCloses {
		return false
	}
	if !outside && !slices.Contains(b.in.Criteria.Days, ev.Day(slot.StartsAt)) {
		return false
	}
	return !b.conflicts(s, slot)
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

// find places s in the earliest legal slot: day by day, start by start, room by room.
func (b *board) find(s *Session, repairing bool) (Placement, bool) {
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
	earliest, latest := dayOpens, dayCloses-minutes
	if workshop {
		for _, rule := range crit.Rules {
			if at, ok := workshopAfter(rule); ok {
				earliest = at
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
	for _, day := range days {
		date, err := time.ParseInLocation(time.DateOnly, day, loc)
		if err != nil {
			continue
		}
		for m := earliest; m <= latest; m += startStep {
			if m%startStep != 0 {
				continue
			}
			start := time.Date(date.Year(), date.Month(), date.Day(), m/60, m%60, 0, 0, loc).UTC()
			for _, rm := range rooms {
				slot := Slot{RoomID: rm.ID, StartsAt: start, EndsAt: start.Add(s.Duration)}
				if b.legal(s, slot, false) {
					return Placement{SubmissionID: s.ID, Slot: slot,
						Reason: reasonFor(repairing, preferred != nil && morning, rm.Name, workshop, earliest)}, true
				}
			}
		}
	}
	return Placement{}, false
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

func reasonFor(repairing, keynoteMorning bool, room string, workshop bool, earliest int) string {
	switch {
	case repairing:
		return reasonRepaired
	case keynoteMorning:
		return "Keynote placed in " + room + " in the morning."
	case workshop && earliest > dayOpens:
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
