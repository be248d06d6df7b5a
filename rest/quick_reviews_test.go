package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/rest"
)

// TestQuickReviews: a signed-in admin saves a quick review of a pending proposal and saves it again
// (one review, replaced); a key the admin made reviews as the admin, in REST version 2026-08-21
// too; a key of the command line reviews as no one; bad input and other organizations change
// nothing; Submission.reviews and REST's submission detail list the reviews.
func TestQuickReviews(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	p := b.propose(w, "Generics", w.ada)
	b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	admin := b.signIn("admin@example.test")
	save := func(decision string, score int, comment string) string {
		return fmt.Sprintf(`mutation { saveMyReview(eventId: %q, submissionId: %q, input: {decision: %s, score: %d, comment: %q}) {
			id reviewerName decision score comment } }`, w.event, str(p, "id"), decision, score, comment)
	}

	g := b.gqlCookie(admin, save("approve", 4, "Strong"), nil)
	require.Empty(t, g.Errors, g.Raw)
	first := g.Data["saveMyReview"].(map[string]any)
	require.Equal(t, "Member admin@example.test", first["reviewerName"])
	g = b.gqlCookie(admin, save("maybe", 3, "  On reflection  "), nil)
	require.Empty(t, g.Errors, g.Raw)
	again := g.Data["saveMyReview"].(map[string]any)
	require.Equal(t, first["id"], again["id"], "one review per person and submission")
	require.Equal(t, "On reflection", again["comment"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM quick_reviews`))

	t.Run("BadInputWritesNothing", func(t *testing.T) {
		for _, doc := range []string{save("deny", 0, ""), save("deny", 6, "")} {
			require.Equal(t, []string{"invalid_input"}, b.gqlCookie(admin, doc, nil).Codes())
		}
		b.decide(w, "accept", p["id"])
		require.Equal(t, []string{"invalid_input"}, b.gqlCookie(admin, save("deny", 2, ""), nil).Codes(), "not pending")
		_, err := b.db.Pool.Exec(b.scopeOf(w.event), `UPDATE submissions SET status = 'pending' WHERE id = $1`, p["id"])
		require.NoError(t, err)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM quick_reviews WHERE decision = 'maybe'`))
	})

	t.Run("KeyOfTheCommandLineReviewsAsNoOne", func(t *testing.T) {
		r := b.gql(b.acme, save("deny", 1, ""), nil)
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM quick_reviews`))
	})

	t.Run("OtherOrganization", func(t *testing.T) {
		r := b.gql(b.globex, save("deny", 1, ""), nil)
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM quick_reviews`))
	})

	t.Run("KeyOfAPersonOverREST", func(t *testing.T) {
		g := b.gqlCookie(admin, `mutation { createApiKey(input: {name: "Reviewing", scopes: [read, write]}) { secret } }`, nil)
		require.Empty(t, g.Errors, g.Raw)
		key := g.Data["createApiKey"].(map[string]any)["secret"].(string)
		path := w.base + "/submissions/" + str(p, "id") + "/review"
		body := map[string]any{"decision": "deny", "score": 2, "comment": nil}
		b.requireError(b.do(http.MethodPut, path, key, body), http.StatusNotFound, "unknown_endpoint")
		r := b.doVersion(rest.VersionCurrent, http.MethodPut, path, key, body)
		require.Equal(t, http.StatusOK, r.Status, r.Raw)
		requireOriginalShape(t, "saveMyReview", r)
		require.Equal(t, again["id"], r.Obj()["id"], "the admin's own review, replaced")
		require.Equal(t, json.Number("2"), r.Obj()["score"])
		require.Nil(t, r.Obj()["comment"])
	})

	t.Run("Listed", func(t *testing.T) {
		detail := b.must(http.StatusOK, http.MethodGet, w.base+"/submissions/"+str(p, "id"), b.acme, nil).Obj()
		reviews := detail["reviews"].([]any)
		require.Len(t, reviews, 1)
		require.Equal(t, "deny", reviews[0].(map[string]any)["decision"])
		g := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { submissions { submissions { id reviews { decision score reviewerName } } } } }`,
			map[string]any{"e": w.event})
		require.Contains(t, fmt.Sprint(g), "deny")
	})
}
