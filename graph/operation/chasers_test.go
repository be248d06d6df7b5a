package operation

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/chaser"
	"github.com/podium/podium/graph/email"
)

// TestPlanChasers runs the planner on a fake clock in Europe/Berlin: quiet hours across midnight,
// the daily cap, the interval after the last chaser, maxSends and deadlines.
func TestPlanChasers(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	at := func(day, hour, minute int) time.Time { return time.Date(2027, 9, day, hour, minute, 0, 0, berlin) }
	s := chaser.Settings{
		Rules: []chaser.Rule{
			{Kind: chaser.Confirmation, Enabled: true, OffsetHours: 72, EveryHours: 48, MaxSends: 2},
			{Kind: chaser.Deliverables, Enabled: true, OffsetHours: 24, EveryHours: 24, MaxSends: 3},
			{Kind: chaser.Reviews, Enabled: false, OffsetHours: 24, EveryHours: 24, MaxSends: 3},
		},
		QuietStart: 21 * 60, QuietEnd: 8 * 60, DailyCap: 1,
	}
	confirm := dueItem{kind: chaser.Confirmation, to: "ada@example.test", count: 1, start: at(3, 23, 30)}

	t.Run("quiet hours across midnight move a chaser to their end", func(t *testing.T) {
		p := planChasers(s, berlin, []dueItem{confirm}, nil)
		require.Len(t, p, 1)
		require.Equal(t, at(4, 8, 0), p[0].at.In(berlin))
		early := confirm
		early.start = at(3, 6, 15)
		require.Equal(t, at(3, 8, 0), planChasers(s, berlin, []dueItem{early}, nil)[0].at.In(berlin))
		day := confirm
		day.start = at(3, 14, 0)
		require.Equal(t, at(3, 14, 0), planChasers(s, berlin, []dueItem{day}, nil)[0].at.In(berlin))
	})

	t.Run("the next one waits everyHours after the last; none after maxSends", func(t *testing.T) {
		one := []sent{{template: email.ChaserConfirmation, to: "ada@example.test", at: at(4, 8, 0)}}
		p := planChasers(s, berlin, []dueItem{confirm}, one)
		require.Equal(t, at(6, 8, 0), p[0].at.In(berlin))
		two := append(slices.Clone(one), sent{template: email.ChaserConfirmation, to: "ada@example.test", at: at(6, 8, 0)})
		require.Empty(t, planChasers(s, berlin, []dueItem{confirm}, two))
		// Another person's chasers, or another kind's, do not count.
		other := []sent{{template: email.ChaserConfirmation, to: "bob@example.test", at: at(4, 8, 0)},
			{template: email.ChaserDeliverables, to: "ada@example.test", at: at(2, 9, 0)}}
		require.Equal(t, at(4, 8, 0), planChasers(s, berlin, []dueItem{confirm}, other)[0].at.In(berlin))
	})

	t.Run("the daily cap moves the second chaser of a day to the next", func(t *testing.T) {
		due := at(10, 12, 0)
		files := dueItem{kind: chaser.Deliverables, to: "ada@example.test", count: 2, start: at(4, 9, 0), deadline: &due}
		p := planChasers(s, berlin, []dueItem{confirm, files}, nil)
		require.Len(t, p, 2)
		require.Equal(t, at(4, 8, 0), p[0].at.In(berlin), "the confirmation")
		require.Equal(t, at(5, 8, 0), p[1].at.In(berlin), "the files: the cap of 1 a day was reached on the 4th")
		require.Equal(t, chaser.Deliverables, p[1].item.kind)
	})

	t.Run("nothing after the deadline, nothing for a rule that is off", func(t *testing.T) {
		due := at(4, 7, 0)
		late := dueItem{kind: chaser.Deliverables, to: "ada@example.test", count: 1, start: at(3, 22, 0), deadline: &due}
		require.Empty(t, planChasers(s, berlin, []dueItem{late}, nil), "quiet until 08:00, after the due time")
		review := dueItem{kind: chaser.Reviews, to: "rev@example.test", count: 3, start: at(3, 12, 0)}
		require.Empty(t, planChasers(s, berlin, []dueItem{review}, nil))
	})

	t.Run("equal quiet bounds mean none", func(t *testing.T) {
		open := s
		open.QuietStart, open.QuietEnd = 0, 0
		require.Equal(t, at(3, 23, 30), planChasers(open, berlin, []dueItem{confirm}, nil)[0].at.In(berlin))
	})
}
