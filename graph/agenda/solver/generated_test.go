package solver_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/agenda/solver"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
)

// generated is an event of two days in Europe/Berlin with four rooms, 64 sessions of 30 to 60
// minutes by 40 speakers, blocks in one room and across rooms, and a third of the speakers
// available only part of the time.
func generated(seed uint64) solver.Input {
	rnd := rand.New(rand.NewPCG(seed, 7))
	days := []string{"2027-09-10", "2027-09-11"}
	local := func(day string, hh, mm int) time.Time {
		d, _ := time.ParseInLocation(time.DateOnly, day, berlin.Location)
		return time.Date(d.Year(), d.Month(), d.Day(), hh, mm, 0, 0, berlin.Location).UTC()
	}
	in := solver.Input{Event: berlin, Criteria: solver.Criteria{Days: days, DayStart: 9 * 60, DayEnd: 18*60 + 30}}
	for i := range 4 {
		id := fmt.Sprintf("room_%d", i)
		in.Rooms = append(in.Rooms, solver.Room{ID: id, Name: fmt.Sprintf("Room %d", i), Position: i + 1})
		in.Criteria.RoomIDs = append(in.Criteria.RoomIDs, id)
	}
	for _, day := range days {
		in.Blocks = append(in.Blocks,
			solver.Block{ID: "lunch " + day, StartsAt: local(day, 12, 30), EndsAt: local(day, 13, 25)},
			solver.Block{ID: "coffee " + day, StartsAt: local(day, 10, 40), EndsAt: local(day, 10, 55)},
			solver.Block{ID: "setup " + day, RoomID: "room_2", StartsAt: local(day, 9, 0), EndsAt: local(day, 10, 10)},
		)
	}
	in.Blocks = append(in.Blocks,
		solver.Block{ID: "press", RoomID: "room_1", StartsAt: local(days[0], 14, 5), EndsAt: local(days[0], 15, 35)},
		solver.Block{ID: "social", RoomID: "room_3", StartsAt: local(days[1], 16, 0), EndsAt: local(days[1], 18, 30)},
	)
	speakers := make([]string, 40)
	for i := range speakers {
		speakers[i] = fmt.Sprintf("ctc_%02d", i)
		switch {
		case i%3 != 0:
			// Two thirds gave no availability: available throughout.
		case i%2 == 0:
			// The first day's afternoon only.
			in.Availability = append(in.Availability,
				solver.Availability{SpeakerID: speakers[i], StartsAt: local(days[0], 13, 0), EndsAt: local(days[0], 18, 30)})
		default:
			// Two stretches on the second day, the first two touching.
			in.Availability = append(in.Availability,
				solver.Availability{SpeakerID: speakers[i], StartsAt: local(days[1], 9, 0), EndsAt: local(days[1], 10, 0)},
				solver.Availability{SpeakerID: speakers[i], StartsAt: local(days[1], 10, 0), EndsAt: local(days[1], 11, 20)},
				solver.Availability{SpeakerID: speakers[i], StartsAt: local(days[1], 15, 0), EndsAt: local(days[1], 17, 0)})
		}
	}
	formats := []string{"Talk", "Talk", "Workshop", "Lightning talk", "Keynote"}
	durations := []time.Duration{30 * time.Minute, 45 * time.Minute, 60 * time.Minute, 35 * time.Minute, 50 * time.Minute}
	for i := range 64 {
		k := rnd.IntN(len(formats))
		s := solver.Session{ID: fmt.Sprintf("sub_%02d", i), Code: fmt.Sprintf("SESS-%02d", i), Format: formats[k],
			Duration: durations[k], Speakers: []string{speakers[rnd.IntN(len(speakers))]},
			Tracks: []string{fmt.Sprintf("trk_%d", rnd.IntN(3))}}
		if rnd.IntN(4) == 0 {
			s.Speakers = append(s.Speakers, speakers[rnd.IntN(len(speakers))])
		}
		in.Sessions = append(in.Sessions, s)
	}
	return in
}

// agendaOf is the agenda the proposal makes, with the input's blocks and availability, for
// operation.Conflicts.
func agendaOf(in solver.Input, placements []solver.Placement) *model.Agenda {
	a := &model.Agenda{}
	for _, rm := range in.Rooms {
		a.Rooms = append(a.Rooms, &model.AgendaRoom{ID: rm.ID, Name: rm.Name, Position: rm.Position})
	}
	at := map[string]solver.Placement{}
	for _, p := range placements {
		at[p.SubmissionID] = p
	}
	for _, s := range in.Sessions {
		as := &model.AgendaSession{ID: s.ID, Code: s.Code}
		for _, sp := range s.Speakers {
			as.Speakers = append(as.Speakers, agenda.Speaker{ID: sp, Name: sp})
		}
		if p, ok := at[s.ID]; ok {
			as.RoomID, as.StartsAt, as.EndsAt = new(p.RoomID), new(scalar.At(p.StartsAt)), new(scalar.At(p.EndsAt))
		}
		a.Sessions = append(a.Sessions, as)
	}
	for _, b := range in.Blocks {
		ab := &model.AgendaBlock{ID: b.ID, Title: b.ID, StartsAt: scalar.At(b.StartsAt), EndsAt: scalar.At(b.EndsAt)}
		if b.RoomID != "" {
			ab.RoomID = new(b.RoomID)
		}
		a.Blocks = append(a.Blocks, ab)
	}
	for _, av := range in.Availability {
		a.Availability = append(a.Availability, model.SpeakerAvailability{ContactID: av.SpeakerID, StartsAt: av.StartsAt, EndsAt: av.EndsAt})
	}
	return a
}

// requireSound checks a proposal: no conflict of any kind on the agenda it makes, every placement
// on the criteria's days and rooms, within the daily window, on 5-minute marks, of the session's
// length; every session placed or unplaced with a reason, once.
func requireSound(t *testing.T, in solver.Input, out solver.Outcome) {
	t.Helper()
	require.Empty(t, operation.Conflicts(agendaOf(in, out.Placements)))
	lengths := map[string]time.Duration{}
	for _, s := range in.Sessions {
		lengths[s.ID] = s.Duration
	}
	seen := map[string]bool{}
	for _, p := range out.Placements {
		require.False(t, seen[p.SubmissionID], p.SubmissionID)
		seen[p.SubmissionID] = true
		start, end := p.StartsAt.In(berlin.Location), p.EndsAt.In(berlin.Location)
		require.Contains(t, in.Criteria.Days, start.Format(time.DateOnly))
		require.Contains(t, in.Criteria.RoomIDs, p.RoomID)
		require.Equal(t, lengths[p.SubmissionID], end.Sub(start))
		require.Zero(t, start.Minute()%5, "%v", start)
		require.Zero(t, start.Second())
		require.Zero(t, end.Minute()%5, "%v", end)
		require.GreaterOrEqual(t, start.Hour()*60+start.Minute(), in.Criteria.DayStart, "%v", start)
		require.LessOrEqual(t, end.Hour()*60+end.Minute(), in.Criteria.DayEnd, "%v", end)
		require.Equal(t, start.Format(time.DateOnly), end.Format(time.DateOnly))
	}
	for _, u := range out.Unplaced {
		require.False(t, seen[u.SubmissionID], u.SubmissionID)
		seen[u.SubmissionID] = true
		require.NotEmpty(t, u.Reason)
	}
	require.Len(t, seen, len(in.Sessions))
}

func TestSolveGeneratedEventHonoursBlocksAndAvailability(t *testing.T) {
	t.Parallel()
	for seed := range uint64(5) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			in := generated(seed)
			out, err := solver.Solve(in)
			require.NoError(t, err)
			requireSound(t, in, out)
			require.GreaterOrEqual(t, len(out.Placements), 50, "most sessions find a slot: %v", out.Unplaced)

			// Off 15-minute marks: blocks ending at 10:10 and 10:55 are followed at once.
			offQuarter := false
			for _, p := range out.Placements {
				offQuarter = offQuarter || p.StartsAt.Minute()%15 != 0
			}
			require.True(t, offQuarter, "starts use the 5-minute marks")

			// Without the blocks and availability the same sessions conflict where they were put.
			bare := in
			bare.Blocks, bare.Availability = nil, nil
			loose, err := solver.Solve(bare)
			require.NoError(t, err)
			require.NotEmpty(t, operation.Conflicts(agendaOf(in, loose.Placements)), "the check is not vacuous")
		})
	}
}

func TestRepairGeneratedEventNeverKeepsAConflict(t *testing.T) {
	t.Parallel()
	in := generated(42)
	// A careless provider: everything at 12:40 local on the first day, in turn over the rooms —
	// over lunch, over the rooms' own blocks, outside availability and double-booked.
	var proposed []solver.Proposed
	for i, s := range in.Sessions {
		start := time.Date(2027, 9, 10, 10, 40, 0, 0, time.UTC)
		proposed = append(proposed, solver.Proposed{SubmissionID: s.ID, RoomID: in.Rooms[i%4].ID,
			StartsAt: start.Format(time.RFC3339), EndsAt: start.Add(s.Duration).Format(time.RFC3339), Reason: "Clumped."})
	}
	out, err := solver.Repair(in, proposed)
	require.NoError(t, err)
	requireSound(t, in, out)
	require.Positive(t, out.Repaired)
}

func TestDailyWindowAndBlocks(t *testing.T) {
	t.Parallel()
	in := input(talk("s1", "SESS-1", "ada"), talk("s2", "SESS-2", "bob"), talk("s3", "SESS-3", "cy"))
	in.Criteria.RoomIDs = []string{"room_a"}
	// 09:00–10:30 local (07:00–08:30Z), a break in room_a 09:30–09:40 and one in every room 10:10–10:20.
	in.Criteria.DayStart, in.Criteria.DayEnd = 9*60, 10*60+30
	in.Blocks = []solver.Block{
		{ID: "b1", RoomID: "room_a", StartsAt: at("2027-09-10T07:30:00Z"), EndsAt: at("2027-09-10T07:40:00Z")},
		{ID: "b2", RoomID: "room_b", StartsAt: at("2027-09-10T07:00:00Z"), EndsAt: at("2027-09-10T08:30:00Z")},
		{ID: "b3", StartsAt: at("2027-09-10T08:10:00Z"), EndsAt: at("2027-09-10T08:20:00Z")},
	}
	out, err := solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"s1": "room_a 2027-09-10T07:00:00Z–2027-09-10T07:30:00Z",
		"s2": "room_a 2027-09-10T07:40:00Z–2027-09-10T08:10:00Z",
	}, slots(out))
	require.Equal(t, []solver.Unplaced{{SubmissionID: "s3", Reason: solver.ReasonNoFreeSlot}}, out.Unplaced)

	// Availability: Cy only from 09:40 local; Ada in two touching stretches.
	in.Blocks = nil
	in.Availability = []solver.Availability{
		{SpeakerID: "cy", StartsAt: at("2027-09-10T07:40:00Z"), EndsAt: at("2027-09-10T09:00:00Z")},
		{SpeakerID: "ada", StartsAt: at("2027-09-10T07:15:00Z"), EndsAt: at("2027-09-10T07:30:00Z")},
		{SpeakerID: "ada", StartsAt: at("2027-09-10T07:30:00Z"), EndsAt: at("2027-09-10T07:45:00Z")},
		{SpeakerID: "bob", StartsAt: at("2027-09-11T07:00:00Z"), EndsAt: at("2027-09-11T09:00:00Z")},
	}
	out, err = solver.Solve(in)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"s1": "room_a 2027-09-10T07:15:00Z–2027-09-10T07:45:00Z",
		"s3": "room_a 2027-09-10T07:45:00Z–2027-09-10T08:15:00Z",
	}, slots(out))
	require.Equal(t, []solver.Unplaced{{SubmissionID: "s2", Reason: solver.ReasonUnavailable}}, out.Unplaced, "Bob only on the 11th")
}

func TestCheckWindow(t *testing.T) {
	t.Parallel()
	require.NoError(t, solver.CheckWindow(480, 1140))
	require.NoError(t, solver.CheckWindow(545, 550))
	require.ErrorIs(t, solver.CheckWindow(475, 1140), solver.ErrWindowCanvas)
	require.ErrorIs(t, solver.CheckWindow(480, 1145), solver.ErrWindowCanvas)
	require.ErrorIs(t, solver.CheckWindow(482, 1140), solver.ErrWindowMarks)
	require.ErrorIs(t, solver.CheckWindow(600, 600), solver.ErrWindowOrder)
	require.ErrorIs(t, solver.CheckWindow(700, 600), solver.ErrWindowOrder)
}
