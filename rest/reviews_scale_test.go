package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedReviews fills a new event with n call-for-proposals submissions, each by its own speaker in
// one of two tracks, and a round with 8 criteria and 3 reviewers who have all reviewed every
// submission; half the submissions have an AI result. Rows are written with SQL to keep the test
// fast; the round and reviewers go through the API.
func (b *testBundle) seedReviews(n int) world {
	b.t.Helper()
	w := b.worldIn("Scale " + itoa(n))
	// The rows are acme's: statements that insert rows and their children at once rely on the
	// session's organization for the children (see the migration tenant_isolation).
	ctx := b.scopeOf(w.event)
	w.track1 = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "track", "name": "Go"}), "id")
	w.track2 = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "track", "name": "Data"}), "id")
	entry := b.saveRound(w, roundBody("Main",
		numericCriterion("Q1", 1, 5, 1, true), numericCriterion("Q2", 1, 5, 2, false), numericCriterion("Q3", 0, 10, 1, false),
		numericCriterion("Q4", 1, 5, 3, false), numericCriterion("Q5", 1, 5, 1, false),
		dropdownCriterion("Verdict", "Accept", "Reject"), dropdownCriterion("Level", "Intro", "Deep"), textCriterion("Notes")))
	round := str(roundOf(entry), "id")
	for _, r := range []string{"a", "b", "c"} {
		b.addReviewer(w, round, r+"@reviewers.test", nil)
	}
	_, err := b.db.PoolFor(ctx).Exec(ctx, `
WITH f AS (
  INSERT INTO forms (id, created_at, updated_at, internal_name, external_title, is_default, event_id)
  VALUES ('form_' || $1, now(), now(), 'CFP', 'CFP', true, $1) RETURNING id
), c AS (
  INSERT INTO contacts (id, created_at, updated_at, email, first_name, last_name, company, custom, approved_profile, event_id)
  SELECT 'ctc_' || $1 || '_' || i, now(), now(), 'speaker' || i || '@example.test', 'First' || i, 'Last' || i, 'Co' || i,
         '{}', '{}', $1
  FROM generate_series(1, $2) i RETURNING id
), s AS (
  INSERT INTO submissions (id, created_at, updated_at, number, code, status, title, description, answers, approved_snapshot,
                           submitted_at, event_id, source_form_id)
  SELECT 'sub_' || $1 || '_' || i, now(), now(), i, 'SESS-' || i, 'pending', 'Talk ' || i, 'About talk ' || i, '{}', '{}',
         now(), $1, (SELECT id FROM f)
  FROM generate_series(1, $2) i RETURNING id
), p AS (
  INSERT INTO submission_participants (id, created_at, updated_at, role, position, contact_id, submission_id)
  SELECT 'spt_' || $1 || '_' || i, now(), now(), 'speaker', 0, 'ctc_' || $1 || '_' || i, 'sub_' || $1 || '_' || i
  FROM generate_series(1, $2) i
)
INSERT INTO submission_tracks (submission_id, track_id)
SELECT 'sub_' || $1 || '_' || i, CASE WHEN i % 2 = 0 THEN $3 ELSE $4 END FROM generate_series(1, $2) i`,
		w.event, n, w.track1, w.track2)
	require.NoError(b.t, err)
	_, err = b.db.PoolFor(ctx).Exec(ctx, `
INSERT INTO review_assignments (id, created_at, updated_at, status, assigned_at, completed_at, round_id, event_member_id, submission_id)
SELECT 'asg_' || s.id || '_' || m.event_member_id, now(), now(), 'completed', now(), now(), m.round_id, m.event_member_id, s.id
FROM submissions s CROSS JOIN review_round_members m
WHERE s.event_id = $1 AND m.round_id = $2`, w.event, round)
	require.NoError(b.t, err)
	_, err = b.db.PoolFor(ctx).Exec(ctx, `
INSERT INTO review_answers (id, created_at, updated_at, numeric_value, text_value, option_value, assignment_id, criterion_id)
SELECT 'ans_' || a.id || '_' || c.id, now(), now(),
       CASE WHEN c.type = 'numeric' THEN 1 + (length(a.id) + c.position) % 4 END,
       CASE WHEN c.type = 'text' THEN 'Notes on ' || a.submission_id END,
       CASE WHEN c.type = 'dropdown' THEN c.options ->> ((length(a.id) + c.position) % 2)::int END,
       a.id, c.id
FROM review_assignments a JOIN review_criteria c ON c.round_id = a.round_id
WHERE a.round_id = $1`, round)
	require.NoError(b.t, err)
	_, err = b.db.PoolFor(ctx).Exec(ctx, `
INSERT INTO ai_review_results (id, created_at, updated_at, round_id, submission_id, score, reasoning, provider, model)
SELECT 'air_' || s.id, now(), now(), $2, s.id, s.number % 5, 'Because.', 'anthropic', 'claude-test'
FROM submissions s WHERE s.event_id = $1 AND s.number % 2 = 0`, w.event, round)
	require.NoError(b.t, err)
	return w
}

// TestWorkspaceQueryCountIsConstant loads the review workspace of a round with 500 submissions × 3
// reviewers × 8 criteria and of one with 10, over REST and over GraphQL walking round →
// assignments → submission → answers: both sizes cost the same number of SQL queries.
func TestWorkspaceQueryCountIsConstant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	small, large := b.seedReviews(10), b.seedReviews(500)

	rest := func(w world) (int64, map[string]any) {
		req := httptest.NewRequest(http.MethodGet, w.base+"/evaluation", nil)
		req.Header.Set("Authorization", "Bearer "+b.acme)
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var ws map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &ws))
		return statements(t, rec), ws
	}
	const q = `query($e: ID!) { event(id: $e) { evaluation { rounds {
	  configuration { round { id } criteria { id } members { id } }
	  assignments { id status submission { code title participants { name } trackNames } reviewer { name }
	    answers { label numericValue optionValue textValue } }
	  results(orderBy: {field: WEIGHTED_AGGREGATE}) { submission { code } weightedAggregate recommendation
	    humanReviews { reviewerName answers { label } } aiResult { score } }
	  progress { percentage } } } } }`
	graphQL := func(w world) int64 {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"e": w.event}})
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.NotContains(t, rec.Body.String(), `"errors"`)
		return statements(t, rec)
	}

	smallCount, _ := rest(small)
	start := time.Now()
	largeCount, ws := rest(large)
	elapsed := time.Since(start)
	require.Equal(t, smallCount, largeCount, "REST workspace queries")
	require.LessOrEqual(t, largeCount, int64(10), "the key check, event access and the workspace")
	t.Logf("GET E/evaluation: %d queries at both sizes; 500 × 3 × 8 served in %v", largeCount, elapsed)
	entry := objects(ws["rounds"])[0]
	require.Len(t, entry["submissions"], 500)
	require.Len(t, entry["assignments"], 1500)
	results := objects(entry["results"])
	require.Len(t, results, 500)
	require.Len(t, objects(results[0]["humanReviews"])[0]["answers"], 8)
	require.NotNil(t, results[0]["weightedAggregate"])
	require.NotNil(t, results[1]["aiResult"])
	for _, p := range objects(entry["progress"]) {
		require.EqualValues(t, 100.0, p["percentage"])
	}

	gqlSmall, gqlLarge := graphQL(small), graphQL(large)
	require.Equal(t, gqlSmall, gqlLarge, "GraphQL workspace queries")
	t.Logf("GraphQL evaluation with assignments → submission → answers: %d queries at both sizes", gqlLarge)
}
