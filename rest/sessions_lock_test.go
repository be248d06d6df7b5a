package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
)

// Creating a session locks its event's row until the transaction ends, to number it. The lock
// holds up another creation in the event, and nothing that merely refers to the event: a speaker
// added meanwhile is not kept waiting (FOR NO KEY UPDATE, where FOR UPDATE would block its
// foreign-key check until the creation commits).
func TestSessionNumberingLockLetsReferencesThrough(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	ctx := b.scopeOf(w.event)

	creation := make(chan int, 1)
	speaker := make(chan struct{})
	err := b.db.InTx(ctx, func(ctx context.Context) error {
		_, err := b.res.Mutation().CreateSession(ctx, w.event, graph.CreateSessionInput{Title: "Holding the lock",
			SpeakerIds: []string{w.ada}})
		require.NoError(t, err)
		go func() {
			r := b.do(http.MethodPost, w.base+"/sessions", b.acme, map[string]any{"title": "Waiting", "description": nil, "formatId": nil, "speakerIds": []any{w.grace}})
			creation <- r.Status
		}()
		go func() {
			b.speaker(w.base, "Katherine", "Johnson", "katherine@example.test")
			close(speaker)
		}()
		select {
		case <-speaker:
		case <-time.After(10 * time.Second):
			t.Error("adding a speaker waited for the session creation's lock")
		}
		select {
		case <-creation:
			t.Error("a second creation did not wait for the first's lock")
		case <-time.After(300 * time.Millisecond):
		}
		return nil
	})
	require.NoError(t, err)
	select {
	case status := <-creation:
		require.Equal(t, http.StatusCreated, status)
	case <-time.After(10 * time.Second):
		t.Fatal("the second creation did not finish after the first committed")
	}
}
