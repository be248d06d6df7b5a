package solver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/agenda/solver"
)

// The event runs 2027-09-10 to 12 in Europe/Berlin (UTC+2 then): 08:00 local is 06:00Z.
var berlin = solver.EventOf("Europe/Berlin", at("2027-09-10T09:00:00Z"), at("2027-09-12T17:00:00Z"))

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func input(sessions ...solver.Session) solver.Input {
	return solver.Input{Event: berlin,
		Rooms:    []solver.Room{{ID: "room_b", Name: "Hall", Position: 2}, {ID: "room_a", Name: "Annex", Position: 1}},
		Sessions: sessions,
		Criteria: solver.Criteria{Days: []string{"2027-09-10"}, RoomIDs: []string{"room_a", "room_b"}}}
}

func talk(id, code string, speakers ...string) solver.Session {
	return solver.Session{ID: id, Code: code, Format: "Talk", Duration: 30 * time.Minute, Speakers: speakers}
}

func slots(out solver.Outcome) map[string]string {
	m := map[string]string{}
	for _, p := range out.Placements {
		m[p.SubmissionID] = p.RoomID + " " + p.StartsAt.Format(time.RFC3339) + "–" + p.EndsAt.Format(time.RFC3339)
	}
	return m
}

func TestCheckSlot(t *testing.T) {
	t.Parallel()
	require.NoError(t, berlin.CheckSlot(at("2027-09-10T19:00:00Z"), at("2027-09-10T20:00:00Z")))
	require.ErrorIs(t, berlin.CheckSlot(at("2027-09-10T10:00:00Z"), at("2027-09-10T10:00:00Z")), solver.ErrEndBeforeStart)
	require.ErrorIs(t, berlin.CheckSlot(at("2027-09-10T21:00:00Z"), at("2027-09-10T22:30:00Z")), solver.ErrOutsideEvent, "over midnight")
	require.ErrorIs(t, berlin.CheckSlot(at("2027-09-13T08:00:00Z"), at("2027-09-13T09:00:00Z")), solver.ErrOutsideEvent)
	require.Equal(t, "2027-09-10", berlin.FirstDay)
	require.Equal(t, "2027-09-12", berlin.LastDay)
}

func TestSolvePlacesEarliestWithoutDoubleBooking(t *testing.T) {
	t.Parallel()
	out, err := solver.Solve(input(talk("s1", "SESS-1", "ada"), talk("s2", "SESS-2", "ada"), talk("s3", "SESS-3", "bob")))
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"s1": "room_a 2027-09-10T06:00:00Z–2027-09-10T06:30:00Z",
		// Ada is busy until 06:30 in either room.
		"s3": "room_b 2027-09-10T06:00:00Z–2027-09-10T06:30:00Z",
		"s2": "room_a 2027-09-10T06:30:00Z–2027-09-10T07:00:00Z",
	}, slots(out))
	require.Equal(t, "s1", out.Placements[0].SubmissionID, "by start, then room")
}

func TestSolveRules(t *testing.T) {
	t.Parallel()
	keynote := solver.Session{ID: "k", Code: "SESS-9", Format: "Keynote", Duration: 60 * time.Minute, Speakers: []string{"kim"}}
	workshop := solver.Session{ID: "w", Code: "SESS-8", Format: "Workshop", Duration: 90 * time.Minute, Speakers: []string{"wes"}}
	in := input(keynote, workshop)
	in.Criteria.Rules = []string{"Keynotes in Hall morning", "No workshops before 1:30 pm"}
	out, err := solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"k": "room_b 2027-09-10T06:00:00Z–2027-09-10T07:00:00Z",
		"w": "room_a 2027-09-10T11:30:00Z–2027-09-10T13:00:00Z",
	}, slots(out))
	reasons := map[string]string{}
	for _, p := range out.Placements {
		reasons[p.SubmissionID] = p.Reason
	}
	require.Equal(t, "Keynote placed in Hall in the morning.", reasons["k"])
	require.Equal(t, "Workshop placed after 13:30.", reasons["w"])

	// Two keynotes in the morning of one room and day: the second has nowhere to go after noon.
	second := keynote
	second.ID, second.Code, second.Speakers = "k2", "SESS-10", []string{"kai"}
	in = input(keynote, second)
	in.Criteria.Rules = []string{"Keynotes in Hall morning"}
	in.Criteria.Days = []string{"2027-09-10", "2027-09-11"}
	out, err = solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, "room_b 2027-09-10T07:00:00Z–2027-09-10T08:00:00Z", slots(out)["k"], "SESS-10 sorts first as a string")

	// Spreading a track puts its sessions on different days.
	a, b := talk("a", "SESS-1", "x"), talk("b", "SESS-2", "y")
	a.Tracks, b.Tracks = []string{"go"}, []string{"go"}
	in = input(a, b)
	in.Criteria.Days = []string{"2027-09-11", "2027-09-10"}
	in.Criteria.Rules = []string{"Spread each track"}
	out, err = solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"a": "room_a 2027-09-10T06:00:00Z–2027-09-10T06:30:00Z",
		"b": "room_a 2027-09-11T06:00:00Z–2027-09-11T06:30:00Z",
	}, slots(out))
}

func TestRepairKeepsLegalAndReplacesTheRest(t *testing.T) {
	t.Parallel()
	in := input(talk("s1", "SESS-1", "ada"), talk("s2", "SESS-2", "bob"), talk("s3", "SESS-3", "cy"), talk("s4", "SESS-4", "di"))
	out, err := solver.Repair(in, []solver.Proposed{
		{SubmissionID: "s1", RoomID: "room_b", StartsAt: "2027-09-10T10:00:00+02:00", EndsAt: "2027-09-10T10:30:00+02:00", Reason: " fine "},
		{SubmissionID: "s1", RoomID: "room_a", StartsAt: "2027-09-10T06:00:00Z", EndsAt: "2027-09-10T06:30:00Z"},
		{SubmissionID: "ghost", RoomID: "room_a", StartsAt: "2027-09-10T06:00:00Z", EndsAt: "2027-09-10T06:30:00Z"},
		// Off the 5-minute marks.
		{SubmissionID: "s2", RoomID: "room_a", StartsAt: "2027-09-10T06:07:00Z", EndsAt: "2027-09-10T06:37:00Z"},
		// The wrong length.
		{SubmissionID: "s3", RoomID: "room_a", StartsAt: "2027-09-10T07:00:00Z", EndsAt: "2027-09-10T08:00:00Z"},
		// A room outside the criteria, and not a time.
		{SubmissionID: "s4", RoomID: "room_z", StartsAt: "soon", EndsAt: "later"},
	})
	require.NoError(t, err)
	require.Equal(t, 3, out.Repaired)
	require.Equal(t, 2, out.Ignored)
	require.Equal(t, "room_b 2027-09-10T08:00:00Z–2027-09-10T08:30:00Z", slots(out)["s1"])
	require.Equal(t, "fine", out.Placements[len(out.Placements)-1].Reason)
	require.Len(t, out.Placements, 4)
}

func TestRespectExistingPlacements(t *testing.T) {
	t.Parallel()
	// A live slot on a day the criteria leave out is kept; one after hours is not.
	kept := talk("s1", "SESS-1", "ada")
	kept.Current = &solver.Slot{RoomID: "room_b", StartsAt: at("2027-09-12T08:00:00Z"), EndsAt: at("2027-09-12T08:30:00Z")}
	late := talk("s2", "SESS-2", "bob")
	late.Current = &solver.Slot{RoomID: "room_a", StartsAt: at("2027-09-10T19:00:00Z"), EndsAt: at("2027-09-10T19:30:00Z")}
	in := input(kept, late)
	in.Criteria.RespectExistingPlacements = true
	out, err := solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"s1": "room_b 2027-09-12T08:00:00Z–2027-09-12T08:30:00Z",
		"s2": "room_a 2027-09-10T06:00:00Z–2027-09-10T06:30:00Z",
	}, slots(out))
}

func TestNoSlots(t *testing.T) {
	t.Parallel()
	in := input(talk("s1", "SESS-1", "ada"))
	in.Criteria.Days = nil
	_, err := solver.Solve(in)
	require.ErrorIs(t, err, solver.ErrNoSlots)

	// Sessions without a legal slot are left unplaced, with the reason; the others are placed.
	long := talk("s1", "SESS-1", "ada")
	long.Duration = 12 * time.Hour
	odd := talk("s2", "SESS-2", "bob")
	odd.Duration = 32 * time.Minute
	out, err := solver.Solve(input(long, odd, talk("s3", "SESS-3", "cy")))
	require.NoError(t, err)
	require.Equal(t, []solver.Unplaced{{SubmissionID: "s1", Reason: solver.ReasonTooLong},
		{SubmissionID: "s2", Reason: solver.ReasonNotOnMarks}}, out.Unplaced)
	require.Len(t, out.Placements, 1)

	// 22 half-hour slots from 08:00 to 19:00 in one room: a 23rd talk of one speaker does not fit.
	var many []solver.Session
	for i := range 23 {
		many = append(many, talk(string(rune('a'+i)), "SESS-"+string(rune('a'+i)), "ada"))
	}
	in = input(many...)
	in.Criteria.RoomIDs = []string{"room_a"}
	out, err = solver.Solve(in)
	require.NoError(t, err)
	require.Len(t, out.Placements, 22)
	require.Equal(t, []solver.Unplaced{{SubmissionID: "w", Reason: solver.ReasonNoFreeSlot}}, out.Unplaced)

	out, err = solver.Solve(input())
	require.NoError(t, err)
	require.Empty(t, out.Placements, "no sessions, an empty proposal")
}

// TestSolveStopsAtTheDeadline: past its deadline the solver stops with ErrDeadline, before
// placing anything; a deadline not yet passed changes nothing.
func TestSolveStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	in := input(talk("s1", "SESS-1", "ada"), talk("s2", "SESS-2", "bob"))
	in.Deadline = time.Now().Add(-time.Second)
	out, err := solver.Solve(in)
	require.ErrorIs(t, err, solver.ErrDeadline)
	require.Empty(t, out.Placements)
	in.Deadline = time.Now().Add(time.Minute)
	out, err = solver.Solve(in)
	require.NoError(t, err)
	require.Len(t, out.Placements, 2)
}
