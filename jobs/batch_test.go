package jobs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBatch(t *testing.T) {
	t.Parallel()

	t.Run("ConcurrentCallsShareStatements", func(t *testing.T) {
		t.Parallel()
		var statements atomic.Int32
		b := &batch[int, int]{exec: func(_ context.Context, reqs []int) ([]int, error) {
			statements.Add(1)
			time.Sleep(2 * time.Millisecond)
			out := make([]int, len(reqs))
			for i, r := range reqs {
				out[i] = r * 10
			}
			return out, nil
		}}
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := b.do(context.Background(), i)
				require.NoError(t, err)
				require.Equal(t, i*10, got)
			}()
		}
		wg.Wait()
		require.Less(t, int(statements.Load()), 100, "calls were batched")
		require.False(t, b.running)
		require.Empty(t, b.pending)
	})

	t.Run("AloneRunsAtOnce", func(t *testing.T) {
		t.Parallel()
		b := &batch[string, string]{exec: func(_ context.Context, reqs []string) ([]string, error) { return reqs, nil }}
		got, err := b.do(context.Background(), "x")
		require.NoError(t, err)
		require.Equal(t, "x", got)
	})

	t.Run("ErrorsReachEveryCallOfTheBatch", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("boom")
		b := &batch[int, int]{exec: func(context.Context, []int) ([]int, error) {
			time.Sleep(time.Millisecond)
			return nil, boom
		}}
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := b.do(context.Background(), i)
				require.ErrorIs(t, err, boom)
			}()
		}
		wg.Wait()
	})

	t.Run("CancelledCallerStillRunsTheBatch", func(t *testing.T) {
		t.Parallel()
		b := &batch[int, int]{exec: func(ctx context.Context, reqs []int) ([]int, error) {
			return reqs, ctx.Err()
		}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := b.do(ctx, 7)
		require.NoError(t, err)
		require.Equal(t, 7, got)
	})

	t.Run("WaitsForTheCallsUnderWay", func(t *testing.T) {
		t.Parallel()
		var sizes []int
		b := &batch[int, int]{expect: func() int { return 5 }, linger: 10 * time.Second,
			exec: func(_ context.Context, reqs []int) ([]int, error) {
				sizes = append(sizes, len(reqs)) // statements run one at a time
				return reqs, nil
			}}
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 5 * time.Millisecond)
				got, err := b.do(context.Background(), i)
				require.NoError(t, err)
				require.Equal(t, i, got)
			}()
		}
		wg.Wait()
		require.Equal(t, []int{5}, sizes, "the first call waited for the four under way")
	})

	t.Run("WaitsNoLongerThanLinger", func(t *testing.T) {
		t.Parallel()
		b := &batch[int, int]{expect: func() int { return 10 }, linger: 50 * time.Millisecond,
			exec: func(_ context.Context, reqs []int) ([]int, error) { return reqs, nil }}
		start := time.Now()
		got, err := b.do(context.Background(), 3)
		require.NoError(t, err)
		require.Equal(t, 3, got)
		require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
		require.Less(t, time.Since(start), 5*time.Second)
		require.False(t, b.running)
	})
}
