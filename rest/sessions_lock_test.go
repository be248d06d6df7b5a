package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/model"
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
		_, err := b.res.Ops.CreateSession(ctx, w.event, model.CreateSessionInput{Title: "Holding the lock",
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

// A session is written with a provisional number and numbered last, just before its commit, so
// that creations in one event wait for each other only that long. Created at once, sessions still
// get the numbers after the highest used, each once, and each response names the code that was
// committed.
func TestConcurrentSessionsAreNumberedConsecutively(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	var first int
	_, err := fmt.Sscanf(str(b.createSession(w, "First", w.ada), "code"), "SESS-%d", &first)
	require.NoError(t, err)
	const n = 12
	codes := make(chan [2]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.do(http.MethodPost, w.base+"/sessions", b.acme, map[string]any{"title": fmt.Sprintf("Talk %d", i),
				"description": nil, "formatId": nil, "speakerIds": []any{w.grace}})
			assert.Equal(t, http.StatusCreated, r.Status, r.Raw)
			codes <- [2]string{str(r.Obj(), "id"), str(r.Obj(), "code")}
		}()
	}
	wg.Wait()
	close(codes)
	committed := map[string]string{}
	for _, s := range b.must(http.StatusOK, http.MethodGet, w.base+"/sessions", b.acme, nil).Obj()["sessions"].([]any) {
		committed[str(s.(map[string]any), "id")] = str(s.(map[string]any), "code")
	}
	var got, want []string
	for c := range codes {
		got = append(got, c[1])
		require.Equal(t, committed[c[0]], c[1], "the code answered is the code committed")
	}
	for i := first + 1; i <= first+n; i++ {
		want = append(want, fmt.Sprintf("SESS-%d", i))
	}
	require.ElementsMatch(t, want, got)
}
