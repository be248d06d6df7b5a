package operation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// day is 2027-09-10 in UTC, hour h.
func hour(h float64) time.Time {
	return time.Date(2027, 9, 10, 0, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
}

func session(id, code, room string, from, to float64, speakers ...string) *model.AgendaSession {
	s := &model.AgendaSession{ID: id, Code: code, RoomID: new(room), StartsAt: new(scalar.At(hour(from))), EndsAt: new(scalar.At(hour(to)))}
	for _, sp := range speakers {
		s.Speakers = append(s.Speakers, agenda.Speaker{ID: sp, Name: "Speaker " + sp})
	}
	return s
}

func block(id, title string, room *string, from, to float64) *model.AgendaBlock {
	return &model.AgendaBlock{ID: id, Title: title, Kind: "break", RoomID: room, StartsAt: scalar.At(hour(from)), EndsAt: scalar.At(hour(to))}
}

func avail(contact string, from, to float64) model.SpeakerAvailability {
	return model.SpeakerAvailability{ContactID: contact, StartsAt: hour(from), EndsAt: hour(to)}
}

type conflictRow struct {
	Kind     model.AgendaConflictKind
	Severity model.AgendaConflictSeverity
	Sessions []string
	Contact  string
	Room     string
	Block    string
	Name     string
	From, To time.Time
}

func rows(cs []*model.AgendaConflict) []conflictRow {
	out := []conflictRow{}
	for _, c := range cs {
		r := conflictRow{Kind: c.Kind, Severity: c.Severity, Sessions: c.SessionIds, Name: c.Name, From: c.StartsAt.Time, To: c.EndsAt.Time}
		if c.ContactID != nil {
			r.Contact = *c.ContactID
		}
		if c.RoomID != nil {
			r.Room = *c.RoomID
		}
		if c.BlockID != nil {
			r.Block = *c.BlockID
		}
		out = append(out, r)
	}
	return out
}

func TestConflicts(t *testing.T) {
	t.Parallel()
	rooms := []*model.AgendaRoom{{ID: "hall", Name: "Hall", Position: 1}, {ID: "annex", Name: "Annex", Position: 2}}

	t.Run("DoubleBookings", func(t *testing.T) {
		t.Parallel()
		a := &model.Agenda{Rooms: rooms, Sessions: []*model.AgendaSession{
			session("s1", "SESS-1", "hall", 9, 10, "ada"),
			session("s2", "SESS-2", "hall", 9.5, 11, "bob"),
			session("s3", "SESS-3", "annex", 9.75, 10.5, "ada"),
			// Back to back with s2 in the Hall: no conflict.
			session("s4", "SESS-4", "hall", 11, 12, "bob"),
			{ID: "s5", Code: "SESS-5", Speakers: []agenda.Speaker{{ID: "ada"}}},
		}}
		require.Equal(t, []conflictRow{
			{Kind: "room", Severity: "blocking", Sessions: []string{"s1", "s2"}, Room: "hall", Name: "Hall", From: hour(9.5), To: hour(10)},
			{Kind: "speaker", Severity: "blocking", Sessions: []string{"s1", "s3"}, Contact: "ada", Name: "Speaker ada", From: hour(9.75), To: hour(10)},
		}, rows(Conflicts(a)))
	})

	t.Run("Blocks", func(t *testing.T) {
		t.Parallel()
		a := &model.Agenda{Rooms: rooms, Sessions: []*model.AgendaSession{
			session("s1", "SESS-1", "hall", 9, 10, "ada"),
			session("s2", "SESS-2", "annex", 9, 10, "bob"),
			// Ends when lunch begins: touching is no overlap.
			session("s3", "SESS-3", "annex", 11, 12, "cy"),
		}, Blocks: []*model.AgendaBlock{
			block("coffee", "Coffee", new("hall"), 9.5, 9.75),
			block("lunch", "Lunch", nil, 12, 13),
			block("setup", "Setup", new("annex"), 7, 9),
			block("early", "Registration", nil, 8, 9.25),
		}}
		require.Equal(t, []conflictRow{
			{Kind: "block", Severity: "blocking", Sessions: []string{"s1"}, Room: "hall", Block: "coffee", Name: "Coffee", From: hour(9.5), To: hour(9.75)},
			{Kind: "block", Severity: "blocking", Sessions: []string{"s1"}, Room: "hall", Block: "early", Name: "Registration", From: hour(9), To: hour(9.25)},
			{Kind: "block", Severity: "blocking", Sessions: []string{"s2"}, Room: "annex", Block: "early", Name: "Registration", From: hour(9), To: hour(9.25)},
		}, rows(Conflicts(a)))
	})

	t.Run("Availability", func(t *testing.T) {
		t.Parallel()
		a := &model.Agenda{Rooms: rooms, Sessions: []*model.AgendaSession{
			// Ada is available 9–10 and 10–11, which touch: 9:30–10:30 is within.
			session("s1", "SESS-1", "hall", 9.5, 10.5, "ada"),
			// Ada is not available 11–12.
			session("s2", "SESS-2", "hall", 10.5, 11.5, "ada", "bob"),
			// Bob gave none: always available. Cy only 14–15.
			session("s3", "SESS-3", "annex", 13, 14.5, "bob", "cy"),
			session("s4", "SESS-4", "annex", 14.5, 15, "cy"),
		}, Availability: []model.SpeakerAvailability{avail("ada", 10, 11), avail("ada", 9, 10), avail("cy", 14, 15)}}
		require.Equal(t, []conflictRow{
			{Kind: "availability", Severity: "warning", Sessions: []string{"s2"}, Contact: "ada", Name: "Speaker ada", From: hour(11), To: hour(11.5)},
			{Kind: "availability", Severity: "warning", Sessions: []string{"s3"}, Contact: "cy", Name: "Speaker cy", From: hour(13), To: hour(14)},
		}, rows(Conflicts(a)))
	})

	t.Run("BlockingFirst", func(t *testing.T) {
		t.Parallel()
		a := &model.Agenda{Rooms: rooms, Sessions: []*model.AgendaSession{
			session("s1", "SESS-1", "hall", 9, 10, "ada"),
			session("s2", "SESS-2", "hall", 9.5, 10.5, "bob"),
		}, Blocks: []*model.AgendaBlock{block("b", "Break", nil, 10.25, 10.5)},
			Availability: []model.SpeakerAvailability{avail("ada", 12, 13)}}
		got := Conflicts(a)
		kinds := []model.AgendaConflictKind{}
		for _, c := range got {
			kinds = append(kinds, c.Kind)
		}
		require.Equal(t, []model.AgendaConflictKind{"room", "block", "availability"}, kinds)
		require.Len(t, Blocking(got), 2)
		require.Equal(t, model.AgendaConflictSeverityWarning, got[2].Severity)
		require.Empty(t, Blocking(got[2:]))
	})
}

func TestFirstGap(t *testing.T) {
	t.Parallel()
	ws := availabilityWindows([]model.SpeakerAvailability{avail("a", 9, 10), avail("a", 9.5, 11), avail("a", 12, 13)})["a"]
	require.Equal(t, []window{{hour(9), hour(11)}, {hour(12), hour(13)}}, ws, "overlapping stretches merge")
	_, _, outside := firstGap(ws, hour(9), hour(11))
	require.False(t, outside)
	from, to, outside := firstGap(ws, hour(10.5), hour(12.5))
	require.True(t, outside)
	require.Equal(t, []time.Time{hour(11), hour(12)}, []time.Time{from, to})
	from, to, outside = firstGap(ws, hour(8), hour(9.5))
	require.True(t, outside)
	require.Equal(t, []time.Time{hour(8), hour(9)}, []time.Time{from, to})
	from, to, outside = firstGap(ws, hour(12.5), hour(14))
	require.True(t, outside)
	require.Equal(t, []time.Time{hour(13), hour(14)}, []time.Time{from, to})
}

// TestGateProposal: a proposal that conflicts on the agenda loses the later placement, which is
// listed unplaced with the reason.
func TestGateProposal(t *testing.T) {
	t.Parallel()
	live := &model.Agenda{Rooms: []*model.AgendaRoom{{ID: "hall", Name: "Hall"}}, Sessions: []*model.AgendaSession{
		{ID: "s1", Code: "SESS-1", Speakers: []agenda.Speaker{{ID: "ada"}}},
		{ID: "s2", Code: "SESS-2", Speakers: []agenda.Speaker{{ID: "bob"}}},
		// Live in the Hall at 9; not placed by the proposal, so not in its way.
		session("s3", "SESS-3", "hall", 9, 10, "cy"),
		{ID: "s4", Code: "SESS-4", Speakers: []agenda.Speaker{{ID: "di"}}},
	}, Blocks: []*model.AgendaBlock{block("lunch", "Lunch", nil, 12, 13)},
		Availability: []model.SpeakerAvailability{avail("di", 14, 15)}}
	at := func(id string, from, to float64) agenda.Placement {
		return agenda.Placement{SubmissionID: id, RoomID: "hall", StartsAt: scalar.FormatTime(hour(from)), EndsAt: scalar.FormatTime(hour(to))}
	}
	kept, unplaced := gateProposal(live, []agenda.Placement{at("s1", 9, 10), at("s2", 9.5, 10.5), at("s4", 15, 16)},
		[]agenda.Unplaced{{SubmissionID: "s3", Reason: "solver"}})
	require.Equal(t, []agenda.Placement{at("s1", 9, 10)}, kept)
	require.Equal(t, []agenda.Unplaced{{SubmissionID: "s2", Reason: reasonGate}, {SubmissionID: "s3", Reason: "solver"},
		{SubmissionID: "s4", Reason: reasonGate}}, unplaced)

	kept, unplaced = gateProposal(live, []agenda.Placement{at("s1", 11, 12.5)}, nil)
	require.Empty(t, kept, "over lunch")
	require.Equal(t, []agenda.Unplaced{{SubmissionID: "s1", Reason: reasonGate}}, unplaced)
}
