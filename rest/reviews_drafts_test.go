package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDraftsAreNotReviewed: a draft is its speaker's until it is submitted, so organizers cannot
// assign it to a reviewer (invalid_input, nothing assigned), in a batch with a submitted one
// either; the submitted one alone is assigned.
func TestDraftsAreNotReviewed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	propose := func(title, status string) string {
		t.Helper()
		return str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
			"title": title, "description": "d", "formatId": w.format, "trackIds": []any{w.track1},
			"speakerIds": []any{w.grace}, "status": status}).Obj(), "id")
	}
	draft, submitted := propose("Draft", "draft"), propose("Submitted", "pending")
	round := str(roundOf(b.saveRound(w, roundBody("R", numericCriterion("Q", 1, 5, 1, true)))), "id")
	member := b.addReviewer(w, round, "rev@example.test", nil)

	b.requireError(b.assign(w, round, member, submitted, draft), http.StatusBadRequest, "invalid_input")
	require.Equal(t, 0, b.count(`SELECT count(*) FROM review_assignments`), "nothing assigned")
	require.Equal(t, http.StatusOK, b.assign(w, round, member, submitted).Status)
	require.Equal(t, 1, b.count(`SELECT count(*) FROM review_assignments`))
}
