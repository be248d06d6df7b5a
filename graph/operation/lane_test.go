package operation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLane: a resolver of an expensive operation goes on at once when no cheap request is in
// flight, waits while one is, until it leaves or for MaxPause at most; a request stays in the
// lane MaxHold at most.
func TestLane(t *testing.T) {
	t.Parallel()
	waited := func(l *Lane) time.Duration {
		start := time.Now()
		l.Yield(context.Background())
		return time.Since(start)
	}

	t.Run("Empty", func(t *testing.T) {
		t.Parallel()
		// An empty lane lets Yield through at once: the bound is far below MaxPause and far above
		// the scheduling delay of a busy machine.
		l := &Lane{MaxPause: time.Minute}
		require.Less(t, waited(l), time.Second)
		var nilLane *Lane
		nilLane.Enter()()
		require.Less(t, waited(nilLane), time.Second)
	})

	t.Run("UntilTheCheapRequestLeaves", func(t *testing.T) {
		t.Parallel()
		l := &Lane{MaxPause: time.Minute}
		leave := l.Enter()
		time.AfterFunc(50*time.Millisecond, leave)
		d := waited(l)
		require.GreaterOrEqual(t, d, 50*time.Millisecond)
		require.Less(t, d, 10*time.Second)
		leave() // twice is once
		require.Less(t, waited(l), 10*time.Millisecond)
	})

	t.Run("MaxPause", func(t *testing.T) {
		t.Parallel()
		l := &Lane{MaxPause: 30 * time.Millisecond}
		defer l.Enter()()
		d := waited(l)
		require.GreaterOrEqual(t, d, 30*time.Millisecond)
		require.Less(t, d, 10*time.Second)
	})

	t.Run("MaxHold", func(t *testing.T) {
		t.Parallel()
		l := &Lane{MaxPause: time.Minute, MaxHold: 30 * time.Millisecond}
		// The hold counts from Enter, so the wait is measured from there too: on a busy
		// machine the yield may start well after it.
		start := time.Now()
		leave := l.Enter()
		defer leave()
		l.Yield(context.Background())
		d := time.Since(start)
		require.GreaterOrEqual(t, d, 30*time.Millisecond)
		require.Less(t, d, 10*time.Second)
		require.Less(t, waited(l), 10*time.Millisecond)
	})
}
