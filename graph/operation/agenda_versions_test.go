package operation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/agenda"
)

func entry(id, code, title, room, starts, ends string, speakers ...string) agenda.Entry {
	e := agenda.Entry{ID: id, Code: code, Title: title, RoomName: room, StartsAt: starts, EndsAt: ends, Tracks: []agenda.Track{}}
	for _, sp := range speakers {
		e.Speakers = append(e.Speakers, agenda.Speaker{ID: sp, Name: strings.ToUpper(sp)})
	}
	return e
}

func publishedBlock(id, title string, room *string, starts, ends string) agenda.Block {
	return agenda.Block{ID: id, Title: title, Kind: "break", RoomName: room, StartsAt: starts, EndsAt: ends}
}

// kindsOf is the changes as "id: kinds", in their order.
func kindsOf(changes []agenda.Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.SessionID + c.BlockID + ": " + strings.Join(c.Kinds, ",")
	}
	return out
}

const (
	t9  = "2027-09-10T09:00:00.000Z"
	t10 = "2027-09-10T10:00:00.000Z"
	t11 = "2027-09-10T11:00:00.000Z"
	t12 = "2027-09-10T12:00:00.000Z"
)

func TestDiffAgendaFirstVersionAddsEverything(t *testing.T) {
	t.Parallel()
	hall := "Hall"
	after := []agenda.Entry{entry("s10", "SESS-10", "Ten", "Hall", t9, t10, "ada"), entry("s2", "SESS-2", "Two", "Annex", t9, t10)}
	blocks := []agenda.Block{publishedBlock("b2", "Lunch", nil, t11, t12), publishedBlock("b1", "Coffee", &hall, t10, t11)}
	changes := DiffAgenda(nil, nil, after, blocks)
	require.Equal(t, []string{"s2: added", "s10: added", "b1: added", "b2: added"}, kindsOf(changes),
		"sessions by code as people read it, then blocks by start")
	require.Nil(t, changes[0].Before)
	require.Equal(t, after[1], *changes[0].After)
	require.Equal(t, "SESS-2", changes[0].Code)
	require.Equal(t, blocks[1], *changes[2].AfterBlock)
	require.Empty(t, DiffAgenda(nil, nil, nil, nil))
	require.NotNil(t, DiffAgenda(nil, nil, nil, nil), "an empty list, not null, in JSON")
}

func TestDiffAgendaKinds(t *testing.T) {
	t.Parallel()
	before := []agenda.Entry{
		entry("same", "SESS-1", "Same", "Hall", t9, t10, "ada", "alan"),
		entry("moved", "SESS-2", "Moved", "Hall", t9, t10, "ada"),
		entry("retimed", "SESS-3", "Retimed", "Hall", t10, t11),
		entry("ended", "SESS-4", "Ended later", "Hall", t11, t12),
		entry("rooms", "SESS-5", "Rooms", "Hall", t11, t12),
		entry("title", "SESS-6", "Old title", "Annex", t9, t10),
		entry("people", "SESS-7", "People", "Annex", t10, t11, "ada"),
		entry("gone", "SESS-8", "Gone", "Annex", t11, t12, "grace"),
		entry("many", "SESS-9", "Many", "Annex", t9, t10, "ada"),
	}
	after := []agenda.Entry{
		entry("same", "SESS-1", "Same", "Hall", t9, t10, "alan", "ada"), // speaking order alone is no change
		entry("moved", "SESS-2", "Moved", "Annex", t10, t11, "ada"),
		entry("retimed", "SESS-3", "Retimed", "Hall", t11, t12),
		entry("ended", "SESS-4", "Ended later", "Hall", t11, "2027-09-10T12:30:00.000Z"),
		entry("rooms", "SESS-5", "Rooms", "Annex", t11, t12),
		entry("title", "SESS-6", "New title", "Annex", t9, t10),
		entry("people", "SESS-7", "People", "Annex", t10, t11, "ada", "grace"),
		entry("many", "SESS-9", "Many more", "Hall", t9, t10, "grace"),
		entry("new", "SESS-11", "New", "Hall", t12, "2027-09-10T13:00:00.000Z"),
	}
	changes := DiffAgenda(before, nil, after, nil)
	require.Equal(t, []string{
		"moved: moved", "retimed: retimed", "ended: retimed", "rooms: re-roomed", "title: retitled",
		"people: speakers", "gone: removed", "many: re-roomed,retitled,speakers", "new: added",
	}, kindsOf(changes))
	byID := map[string]agenda.Change{}
	for _, c := range changes {
		byID[c.SessionID] = c
	}
	require.Equal(t, "New title", byID["title"].Title, "a change is titled as published now")
	require.Equal(t, "Old title", byID["title"].Before.Title)
	require.Equal(t, "Gone", byID["gone"].Title, "a removed session keeps its last title")
	require.Nil(t, byID["gone"].After)
	require.Equal(t, "Annex", byID["moved"].After.RoomName)
	require.Equal(t, "Hall", byID["moved"].Before.RoomName)

	// The diff is its own inverse's mirror: swapping the versions swaps added and removed.
	back := DiffAgenda(after, nil, before, nil)
	require.Contains(t, kindsOf(back), "gone: added")
	require.Contains(t, kindsOf(back), "new: removed")
	require.Empty(t, DiffAgenda(after, nil, after, nil), "nothing changed")
}

func TestDiffAgendaBlocks(t *testing.T) {
	t.Parallel()
	hall, annex := "Hall", "Annex"
	before := []agenda.Block{
		publishedBlock("keep", "Coffee", nil, t9, t10),
		publishedBlock("everywhere", "Lunch", &hall, t11, t12), // from one room to every room
		publishedBlock("later", "Break", &hall, t10, t11),
		publishedBlock("renamed", "Snacks", &annex, t12, "2027-09-10T13:00:00.000Z"),
		publishedBlock("both", "Social", &annex, t9, t10),
		publishedBlock("gone", "Registration", nil, "2027-09-10T08:00:00.000Z", t9),
	}
	after := []agenda.Block{
		publishedBlock("keep", "Coffee", nil, t9, t10),
		publishedBlock("everywhere", "Lunch", nil, t11, t12),
		publishedBlock("later", "Break", &hall, t11, t12),
		publishedBlock("renamed", "Cake", &annex, t12, "2027-09-10T13:00:00.000Z"),
		publishedBlock("both", "Social", &hall, t10, t11),
		publishedBlock("new", "Closing", nil, "2027-09-10T16:00:00.000Z", "2027-09-10T17:00:00.000Z"),
	}
	changes := DiffAgenda(nil, before, nil, after)
	require.Equal(t, []string{"gone: removed", "both: moved", "everywhere: re-roomed", "later: retimed",
		"renamed: retitled", "new: added"}, kindsOf(changes), "by start; a removed block at its old start")
	for _, c := range changes {
		require.Empty(t, c.SessionID)
		require.Nil(t, c.Before)
		require.Nil(t, c.After)
	}
}

func TestNaturalCompare(t *testing.T) {
	t.Parallel()
	require.Negative(t, naturalCompare("SESS-2", "SESS-10"))
	require.Positive(t, naturalCompare("SESS-10", "SESS-9"))
	require.Negative(t, naturalCompare("A-1", "B-1"))
	require.Negative(t, naturalCompare("SESS-1", "SESS-1a"))
	require.Zero(t, naturalCompare("SESS-007", "SESS-7"))
}

func TestChangeDetailIsInTheEventsTimeZone(t *testing.T) {
	t.Parallel()
	b := entry("s", "SESS-1", "Old", "Hall", t9, t10)
	a := entry("s", "SESS-1", "New", "Annex", t10, t11)
	d := changeDetail(agenda.Change{Kinds: []string{changeMoved, changeRetitled}, Before: &b, After: &a}, "Europe/Berlin")
	require.Equal(t, `moved to Annex, Fri, Sep 10, 2027, 12:00 PM–1:00 PM CEST (was Hall, Fri, Sep 10, 2027, 11:00 AM–12:00 PM CEST); retitled (was "Old")`, d)
	require.Equal(t, "removed from the agenda", changeDetail(agenda.Change{Kinds: []string{changeRemoved}, Before: &b}, "UTC"))
}
