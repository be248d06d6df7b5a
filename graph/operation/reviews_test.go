package operation

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/podium/podium/graph/model"

	"github.com/stretchr/testify/require"
)

// These tests cover the review computations that need no database: the auto-distribution plan,
// aggregates, progress, redaction and scorecard rules. The operations around them are tested over
// HTTP against PostgreSQL in package rest.

func member(id string, limit *int, tracks ...string) planMember {
	return planMember{eventMemberID: id, cap: limit, trackIDs: tracks, conflicts: map[string]bool{}}
}

func sub(id string, tracks ...string) planSubmission {
	return planSubmission{id: id, code: "C-" + id, trackIDs: tracks}
}

func plannedPairs(res *model.AutoDistributionResult) []string {
	out := make([]string, len(res.Planned))
	for i, p := range res.Planned {
		out[i] = p.SubmissionID + "→" + p.EventMemberID + ":" + string(p.Tier)
	}
	return out
}

func TestPlanFillsOneLevelAtATime(t *testing.T) {
	// Three submissions, two reviewers per submission, three generalists: every submission gets its
	// first reviewer before any gets its second, and the least loaded reviewer is picked.
	in := planInput{
		submissions: []planSubmission{sub("s1"), sub("s2"), sub("s3")},
		members:     []planMember{member("m1", nil), member("m2", nil), member("m3", nil)},
	}
	res := planAutoDistribution(in, 2)
	require.Equal(t, []string{
		"s1→m1:generalist", "s2→m2:generalist", "s3→m3:generalist",
		"s1→m2:generalist", "s2→m1:generalist", "s3→m1:generalist",
	}, plannedPairs(res))
	require.Empty(t, res.Shortfalls)
	require.Zero(t, res.OutOfTrack)
}

func TestPlanPrefersInTrackThenGeneralistThenOutOfTrack(t *testing.T) {
	in := planInput{
		submissions: []planSubmission{sub("s1", "go")},
		members:     []planMember{member("a-out", nil, "data"), member("b-gen", nil), member("c-in", nil, "go", "web")},
	}
	res := planAutoDistribution(in, 3)
	require.Equal(t, []string{"s1→c-in:in_track", "s1→b-gen:generalist", "s1→a-out:out_of_track"}, plannedPairs(res))
	require.Equal(t, 1, res.OutOfTrack)
}

func TestPlanIsDeterministic(t *testing.T) {
	subs := []planSubmission{sub("s1", "go"), sub("s2", "data"), sub("s3"), sub("s4", "go", "data"), sub("s5")}
	members := []planMember{member("m1", new(2), "go"), member("m2", nil), member("m3", new(3), "data"), member("m4", nil, "web")}
	members[1].conflicts["s2"] = true
	existing := []planAssignment{{submissionID: "s3", eventMemberID: "m2"}, {submissionID: "s5", eventMemberID: "m4", recused: true}}
	want := plannedPairs(planAutoDistribution(planInput{submissions: subs, members: members, existing: existing}, 2))
	for range 20 {
		s, m, e := slices.Clone(subs), slices.Clone(members), slices.Clone(existing)
		rand.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		rand.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
		rand.Shuffle(len(e), func(i, j int) { e[i], e[j] = e[j], e[i] })
		require.Equal(t, want, plannedPairs(planAutoDistribution(planInput{submissions: s, members: m, existing: e}, 2)))
	}
}

func TestPlanRespectsCapsConflictsAndExistingPairs(t *testing.T) {
	m1 := member("m1", new(1))
	m2 := member("m2", nil)
	m2.conflicts["s1"] = true
	in := planInput{
		submissions: []planSubmission{sub("s1"), sub("s2"), sub("s3")},
		members:     []planMember{m1, m2},
		// m1 already reviews s3 (its cap is used up); a recused pair is never planned again.
		existing: []planAssignment{{submissionID: "s3", eventMemberID: "m1"}, {submissionID: "s2", eventMemberID: "m2", recused: true}},
	}
	res := planAutoDistribution(in, 2)
	// s1 and s2 have no reviews, s3 has one: s1 and s2 go first. m1 is at cap, m2 conflicts with
	// s1 and recused from s2; s3 gets m2.
	require.Equal(t, []string{"s3→m2:generalist"}, plannedPairs(res))
	require.Equal(t, 1, res.ConflictsSkipped)
	reasons := map[string]string{}
	missing := map[string]int{}
	for _, s := range res.Shortfalls {
		reasons[s.SubmissionID], missing[s.SubmissionID] = string(s.Reason), s.Missing
	}
	// s1: m2 is in conflict but m1 is only capped; s2: m1 is left but capped.
	require.Equal(t, map[string]string{"s1": "caps_exhausted", "s2": "caps_exhausted"}, reasons)
	require.Equal(t, map[string]int{"s1": 2, "s2": 2}, missing)
}

func TestPlanShortfallReasons(t *testing.T) {
	conflicted := member("m1", nil)
	conflicted.conflicts["s1"] = true
	res := planAutoDistribution(planInput{submissions: []planSubmission{sub("s1")}, members: []planMember{conflicted}}, 1)
	require.Equal(t, model.AutoDistributionShortfallReasonConflicts, res.Shortfalls[0].Reason)

	res = planAutoDistribution(planInput{submissions: []planSubmission{sub("s1")}}, 2)
	require.Equal(t, model.AutoDistributionShortfallReasonNoReviewers, res.Shortfalls[0].Reason)
	require.Equal(t, 2, res.Shortfalls[0].Missing)
	require.Equal(t, "C-s1", res.Shortfalls[0].Code)

	// Everyone is on the submission already: no reviewers are left.
	res = planAutoDistribution(planInput{submissions: []planSubmission{sub("s1")}, members: []planMember{member("m1", nil)},
		existing: []planAssignment{{submissionID: "s1", eventMemberID: "m1", recused: true}}}, 1)
	require.Equal(t, model.AutoDistributionShortfallReasonNoReviewers, res.Shortfalls[0].Reason)

	res = planAutoDistribution(planInput{submissions: []planSubmission{sub("s1"), sub("s2")}, members: []planMember{member("m1", new(1))}}, 1)
	require.Len(t, res.Planned, 1)
	require.Equal(t, model.AutoDistributionShortfallReasonCapsExhausted, res.Shortfalls[0].Reason)
}

func TestWeightedAggregate(t *testing.T) {
	require.Nil(t, weightedAggregate(nil))
	// The contract's example: 4 and 2 weighted 2 and 1.
	require.Equal(t, 3.33, *weightedAggregate([]weighted{{4, 2}, {2, 1}}))
	require.Equal(t, 2.67, *weightedAggregate([]weighted{{2, 2}, {4, 1}}))
	require.Equal(t, 4.5, *weightedAggregate([]weighted{{4, 1}, {5, 1}}))
	// Halves round up, as the original's Math.round did.
	require.Equal(t, 1.13, *weightedAggregate([]weighted{{1.125, 1}}))
	require.Equal(t, -1.12, *weightedAggregate([]weighted{{-1.125, 1}}))
}

func TestResultCountsCompletedReviewsOnly(t *testing.T) {
	criteria := map[string]*model.Criterion{"a": {ID: "a", Weight: 2}, "b": {ID: "b", Weight: 1}, "d": {ID: "d", Weight: 1}}
	review := func(status model.ReviewAssignmentStatus, answers ...*model.ReviewAnswerView) *model.HumanReview {
		return &model.HumanReview{Assignment: &model.ReviewAssignmentRecord{Status: status}, Answers: answers}
	}
	num := func(id string, v float64) *model.ReviewAnswerView {
		return &model.ReviewAnswerView{CriterionID: id, Type: model.ReviewCriterionTypeNumeric, NumericValue: &v}
	}
	opt := func(v string) *model.ReviewAnswerView {
		return &model.ReviewAnswerView{CriterionID: "d", Type: model.ReviewCriterionTypeDropdown, OptionValue: &v}
	}
	row := result(&model.EvaluationSubmission{}, []*model.HumanReview{
		review(model.ReviewAssignmentStatusCompleted, num("a", 4), num("b", 2), opt("Accept")),
		review(model.ReviewAssignmentStatusRecused, num("a", 1), opt("Reject")),
		review(model.ReviewAssignmentStatusPending),
		review(model.ReviewAssignmentStatusCompleted, opt("Maybe")),
		review(model.ReviewAssignmentStatusCompleted, opt("Accept")),
	}, criteria)
	require.Equal(t, 5, row.ReviewerCount)
	require.Equal(t, 3, row.CompletedCount)
	require.Equal(t, 3.33, *row.WeightedAggregate)
	require.Equal(t, "Accept, Maybe", *row.Recommendation)

	empty := result(&model.EvaluationSubmission{}, nil, criteria)
	require.Nil(t, empty.WeightedAggregate)
	require.Nil(t, empty.Recommendation)
	require.NotNil(t, empty.HumanReviews)
}

func TestProgressPercentage(t *testing.T) {
	reviewers := []*model.Reviewer{{Member: &model.RoundMember{EventMemberID: "m1"}}, {Member: &model.RoundMember{EventMemberID: "m2"}},
		{Member: &model.RoundMember{EventMemberID: "m3"}}, {Member: &model.RoundMember{EventMemberID: "m4"}}}
	a := func(m string, s model.ReviewAssignmentStatus) *model.ReviewAssignmentRecord {
		return &model.ReviewAssignmentRecord{EventMemberID: m, Status: s}
	}
	rows := progress(reviewers, []*model.ReviewAssignmentRecord{
		// m1: 4 assigned, 1 recused, 1 completed → 1/3 → 33.
		a("m1", model.ReviewAssignmentStatusCompleted), a("m1", model.ReviewAssignmentStatusRecused),
		a("m1", model.ReviewAssignmentStatusPending), a("m1", model.ReviewAssignmentStatusPending),
		// m2: 3 assigned, 2 completed → 67 (rounded half up from 66.67).
		a("m2", model.ReviewAssignmentStatusCompleted), a("m2", model.ReviewAssignmentStatusCompleted), a("m2", model.ReviewAssignmentStatusPending),
		// m3: everything recused → 0, not a division by zero.
		a("m3", model.ReviewAssignmentStatusRecused),
	})
	got := map[string][5]int{}
	for _, p := range rows {
		got[p.EventMemberID] = [5]int{p.Assigned, p.Completed, p.Recused, p.Remaining, p.Percentage}
	}
	require.Equal(t, map[string][5]int{
		"m1": {4, 1, 1, 2, 33}, "m2": {3, 2, 0, 1, 67}, "m3": {1, 0, 1, 0, 0}, "m4": {0, 0, 0, 0, 0},
	}, got)

	// Halves round up: 1 of 2 is 50, 1 of 8 is 12.5 → 13.
	rows = progress(reviewers[:1], []*model.ReviewAssignmentRecord{
		a("m1", model.ReviewAssignmentStatusCompleted), a("m1", model.ReviewAssignmentStatusPending), a("m1", model.ReviewAssignmentStatusPending),
		a("m1", model.ReviewAssignmentStatusPending), a("m1", model.ReviewAssignmentStatusPending), a("m1", model.ReviewAssignmentStatusPending),
		a("m1", model.ReviewAssignmentStatusPending), a("m1", model.ReviewAssignmentStatusPending),
	})
	require.Equal(t, 13, rows[0].Percentage)
}

func TestRedact(t *testing.T) {
	identity := []string{"Ada Lovelace", "Ada", "Lovelace", "ada@example.test", "Analytical Engines Ltd", "Al", "X"}
	got := redact("Ada Lovelace (ada@example.test) of ANALYTICAL ENGINES LTD on Also-ran algebra; ada wrote it. Al too.", identity)
	require.Equal(t, "[redacted] ([redacted]) of [redacted] on Also-ran algebra; [redacted] wrote it. [redacted] too.", got)
	require.Equal(t, "nothing here", redact("nothing here", nil))
}

func TestNormalizeCriteria(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	id := "crit_x"
	in := []*model.ReviewCriterionInput{
		{Label: " Depth ", Type: model.ReviewCriterionTypeNumeric, Min: f(1), Max: f(5), Weight: 2, Options: []string{"ignored"}},
		{Label: "Verdict", Type: model.ReviewCriterionTypeDropdown, Min: f(1), Max: f(2), Weight: 7, Options: []string{" Yes ", "", "No"}},
		{ID: &id, Label: "Notes", Type: model.ReviewCriterionTypeText, Min: f(0), Max: f(1), Weight: 3, Options: []string{"x"}},
	}
	out, err := normalizeCriteria(in)
	require.NoError(t, err)
	require.Equal(t, "Depth", out[0].Label)
	require.Equal(t, []string{}, out[0].Options)
	require.Equal(t, 2.0, out[0].Weight)
	require.Equal(t, []string{"Yes", "No"}, out[1].Options)
	require.Equal(t, 1.0, out[1].Weight)
	require.Nil(t, out[1].Min)
	require.Nil(t, out[2].Max)
	require.Equal(t, []string{}, out[2].Options)
	require.Equal(t, 1.0, out[2].Weight)
	require.Equal(t, "crit_x", *out[2].ID)
}
