package dbx

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
)

// BenchmarkConnShare is the share's cost per connection: a person's and an organization's slot
// taken and given back, by as many goroutines at once as the machine runs, all of one
// organization (W4's shape).
func BenchmarkConnShare(b *testing.B) {
	s := newConnShare(20, 0, 0)
	ctx := viewer.NewContext(context.Background(), &viewer.Viewer{OrganizationID: "org_a",
		Person: &viewer.Person{UserID: "usr_ada"}})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l, err := s.take(ctx)
			if err != nil {
				b.Fatal(err)
			}
			s.release(l)
		}
	})
}

// TestConnShareSweepsIdleKeys: idle keys stay for their next request, and are dropped once the map
// holds maxGates of them; a busy key is never dropped.
func TestConnShareSweepsIdleKeys(t *testing.T) {
	s := newConnShare(4, 0, 0)
	busy, err := s.take(viewer.WithOrganization(context.Background(), "org_busy"))
	require.NoError(t, err)
	for i := range 3 * maxGates {
		l, err := s.take(viewer.WithOrganization(context.Background(), fmt.Sprint("org_", i)))
		require.NoError(t, err)
		s.release(l)
		require.LessOrEqual(t, len(s.gates), maxGates)
	}
	require.Same(t, busy.org, s.gates[gateKey{id: "org_busy"}])
	require.Equal(t, 1, s.inUse())
	s.release(busy)
	require.Zero(t, s.inUse())
}
