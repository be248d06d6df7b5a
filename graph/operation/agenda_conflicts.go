package operation

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Conflicts finds what is wrong with the scheduled sessions (docs/agenda.md "Conflicts and the
// publish gate"): speaker and room double bookings and sessions overlapping a block of their room
// or of every room, all blocking; then sessions outside a speaker's availability, warnings. A
// speaker without availability is available throughout. Touching ends do not overlap.
//
// The agenda draft's gate checks proposals with it too (agenda_drafts.go), so a proposal breaks
// none of the rules the agenda shows.
func Conflicts(a *model.Agenda) []*model.AgendaConflict {
	var scheduled []*model.AgendaSession
	for _, s := range a.Sessions {
		if s.StartsAt != nil && s.EndsAt != nil {
			scheduled = append(scheduled, s)
		}
	}
	slices.SortStableFunc(scheduled, func(x, y *model.AgendaSession) int {
		return cmp.Or(x.StartsAt.Time.Compare(y.StartsAt.Time), cmp.Compare(x.Code, y.Code))
	})
	out := doubleBookings(a, scheduled)
	out = append(out, blockOverlaps(a, scheduled)...)
	return append(out, unavailable(a, scheduled)...)
}

// doubleBookings are the pairs of scheduled sessions (sorted by start) sharing a room or a
// speaker while they overlap.
func doubleBookings(a *model.Agenda, scheduled []*model.AgendaSession) []*model.AgendaConflict {
	rooms := map[string]string{}
	for _, rm := range a.Rooms {
		rooms[rm.ID] = rm.Name
	}
	out := []*model.AgendaConflict{}
	for i, x := range scheduled {
		for _, y := range scheduled[i+1:] {
			if !y.StartsAt.Time.Before(x.EndsAt.Time) {
				// Sorted by start: no later session overlaps x either.
				break
			}
			start, end := y.StartsAt.Time, minTime(x.EndsAt.Time, y.EndsAt.Time)
			pair := []string{x.ID, y.ID}
			if x.RoomID != nil && y.RoomID != nil && *x.RoomID == *y.RoomID {
				out = append(out, &model.AgendaConflict{Kind: model.AgendaConflictKindRoom, Severity: model.AgendaConflictSeverityBlocking,
					SessionIds: pair, RoomID: x.RoomID, Name: rooms[*x.RoomID], StartsAt: scalar.At(start), EndsAt: scalar.At(end)})
			}
			for _, sp := range x.Speakers {
				if slices.ContainsFunc(y.Speakers, func(o agenda.Speaker) bool { return o.ID == sp.ID }) {
					out = append(out, &model.AgendaConflict{Kind: model.AgendaConflictKindSpeaker, Severity: model.AgendaConflictSeverityBlocking,
						SessionIds: pair, ContactID: new(sp.ID), Name: sp.Name, StartsAt: scalar.At(start), EndsAt: scalar.At(end)})
				}
			}
		}
	}
	return out
}

// blockOverlaps are the scheduled sessions overlapping a block of their room or of every room.
func blockOverlaps(a *model.Agenda, scheduled []*model.AgendaSession) []*model.AgendaConflict {
	var out []*model.AgendaConflict
	for _, s := range scheduled {
		for _, b := range a.Blocks {
			if b.RoomID != nil && (s.RoomID == nil || *b.RoomID != *s.RoomID) {
				continue
			}
			if !s.StartsAt.Time.Before(b.EndsAt.Time) || !b.StartsAt.Time.Before(s.EndsAt.Time) {
				continue
			}
			out = append(out, &model.AgendaConflict{Kind: model.AgendaConflictKindBlock, Severity: model.AgendaConflictSeverityBlocking,
				SessionIds: []string{s.ID}, RoomID: s.RoomID, BlockID: new(b.ID), Name: b.Title,
				StartsAt: scalar.At(maxTime(s.StartsAt.Time, b.StartsAt.Time)), EndsAt: scalar.At(minTime(s.EndsAt.Time, b.EndsAt.Time))})
		}
	}
	return out
}

// unavailable are the scheduled sessions with a stretch outside one of their speakers'
// availability, one conflict per session and speaker, for the first such stretch.
func unavailable(a *model.Agenda, scheduled []*model.AgendaSession) []*model.AgendaConflict {
	if len(a.Availability) == 0 {
		return nil
	}
	windows := availabilityWindows(a.Availability)
	var out []*model.AgendaConflict
	for _, s := range scheduled {
		for _, sp := range s.Speakers {
			ws, limited := windows[sp.ID]
			if !limited {
				continue
			}
			if from, to, outside := firstGap(ws, s.StartsAt.Time, s.EndsAt.Time); outside {
				out = append(out, &model.AgendaConflict{Kind: model.AgendaConflictKindAvailability,
					Severity: model.AgendaConflictSeverityWarning, SessionIds: []string{s.ID}, ContactID: new(sp.ID), Name: sp.Name,
					StartsAt: scalar.At(from), EndsAt: scalar.At(to)})
			}
		}
	}
	return out
}

// window is a stretch of time, start inclusive, end exclusive.
type window struct{ start, end time.Time }

// availabilityWindows merges each speaker's availability into sorted, disjoint windows: two
// stretches that touch or overlap make one.
func availabilityWindows(rows []model.SpeakerAvailability) map[string][]window {
	by := map[string][]window{}
	for _, r := range rows {
		if r.EndsAt.After(r.StartsAt) {
			by[r.ContactID] = append(by[r.ContactID], window{r.StartsAt, r.EndsAt})
		} else if _, ok := by[r.ContactID]; !ok {
			// An empty stretch still says the speaker gave availability.
			by[r.ContactID] = nil
		}
	}
	for id, ws := range by {
		slices.SortFunc(ws, func(x, y window) int { return x.start.Compare(y.start) })
		var merged []window
		for _, w := range ws {
			if n := len(merged); n > 0 && !w.start.After(merged[n-1].end) {
				merged[n-1].end = maxTime(merged[n-1].end, w.end)
				continue
			}
			merged = append(merged, w)
		}
		by[id] = merged
	}
	return by
}

// firstGap is the first stretch of [start, end) outside the merged windows, if any.
func firstGap(ws []window, start, end time.Time) (time.Time, time.Time, bool) {
	at := start
	for _, w := range ws {
		if !w.end.After(at) {
			continue
		}
		if w.start.After(at) {
			return at, minTime(w.start, end), true
		}
		at = w.end
		if !at.Before(end) {
			return time.Time{}, time.Time{}, false
		}
	}
	return at, end, true
}

// Blocking keeps the conflicts that stop a publish.
func Blocking(all []*model.AgendaConflict) []*model.AgendaConflict {
	var out []*model.AgendaConflict
	for _, c := range all {
		if c.Severity == model.AgendaConflictSeverityBlocking {
			out = append(out, c)
		}
	}
	return out
}

// publishGate refuses to publish an agenda with blocking conflicts unless forced: a 409
// schedule_conflict whose details list them (GraphQL's extensions.conflicts).
func publishGate(a *model.Agenda, force bool) error {
	if force {
		return nil
	}
	blocking := Blocking(Conflicts(a))
	if len(blocking) == 0 {
		return nil
	}
	msg := fmt.Sprintf("The agenda has %d blocking conflicts; resolve them, or publish with force", len(blocking))
	if len(blocking) == 1 {
		msg = "The agenda has a blocking conflict; resolve it, or publish with force"
	}
	return apperr.Conflict(apperr.CodeScheduleConflict, msg).With("conflicts", blocking)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
