package calendar

import (
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/require"
)

func TestRequestAndCancel(t *testing.T) {
	t.Parallel()
	s := Session{ID: "sub_1", Title: "Go, fast", Description: "Line one\nline two; with, commas", Room: "Hall A",
		StartsAt: time.Date(2027, 9, 10, 9, 0, 0, 0, time.UTC), EndsAt: time.Date(2027, 9, 10, 9, 45, 0, 0, time.UTC),
		Sequence: 2, URL: "https://podium.example.test/portal"}
	org := Party{Name: "GopherCon EU", Email: "team@gophercon.test"}
	ada := Party{Name: "Ada Lovelace", Email: "ada@example.test"}
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

	for method, raw := range map[string]string{"REQUEST": Request(s, org, ada, now), "CANCEL": Cancel(s, org, ada, now)} {
		cal, err := ics.ParseCalendar(strings.NewReader(raw))
		require.NoError(t, err, raw)
		require.Equal(t, method, cal.CalendarProperties[propIndex(cal, ics.PropertyMethod)].Value)
		events := cal.Events()
		require.Len(t, events, 1)
		ev := events[0]
		require.Equal(t, "sub_1@podium", ev.Id())
		require.Equal(t, "2", ev.GetProperty(ics.ComponentPropertySequence).Value)
		start, err := ev.GetStartAt()
		require.NoError(t, err)
		require.True(t, start.Equal(s.StartsAt))
		require.Equal(t, "Go, fast", ev.GetProperty(ics.ComponentPropertySummary).Value)
		require.Equal(t, "Line one\nline two; with, commas", ev.GetProperty(ics.ComponentPropertyDescription).Value)
		require.Contains(t, ev.GetProperty(ics.ComponentPropertyAttendee).Value, "ada@example.test")
		status := ev.GetProperty(ics.ComponentPropertyStatus).Value
		if method == "CANCEL" {
			require.Equal(t, "CANCELLED", status)
		} else {
			require.Equal(t, "CONFIRMED", status)
		}
	}
}

func propIndex(cal *ics.Calendar, p ics.Property) int {
	for i, prop := range cal.CalendarProperties {
		if prop.IANAToken == string(p) {
			return i
		}
	}
	return -1
}
