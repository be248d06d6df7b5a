package rest_test

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scorecard is a round with the contract's example criteria, its reviewers and submissions.
type scorecard struct {
	w                              world
	round                          string
	quality, depth, verdict, notes string
	r1, r2, r3                     string
	s1, s2                         string
	answersURL                     func(assignment string) string
	assignment                     func(member, submission string) string
	entry                          func() map[string]any
}

func (b *testBundle) scorecard() scorecard {
	b.t.Helper()
	sc := scorecard{w: b.world()}
	w := sc.w
	sc.s1 = b.proposeIn(w, "Generics in practice", "Ada Lovelace shows generics.", []string{w.track1}, w.ada)
	sc.s2 = b.proposeIn(w, "Compilers", "d", nil, w.grace)
	entry := b.saveRound(w, roundBody("Main", numericCriterion("Quality", 1, 5, 2, true), numericCriterion("Depth", 1, 5, 1, false),
		dropdownCriterion("Verdict", "Accept", "Reject", "Maybe"), textCriterion("Notes")))
	sc.round = str(roundOf(entry), "id")
	c := criteriaOf(entry)
	sc.quality, sc.depth, sc.verdict, sc.notes = str(c[0], "id"), str(c[1], "id"), str(c[2], "id"), str(c[3], "id")
	sc.r1 = b.addReviewer(w, sc.round, "r1@example.test", nil)
	sc.r2 = b.addReviewer(w, sc.round, "r2@example.test", nil)
	sc.r3 = b.addReviewer(w, sc.round, "r3@example.test", nil)
	for _, m := range []string{sc.r1, sc.r2, sc.r3} {
		require.Equal(b.t, http.StatusOK, b.assign(w, sc.round, m, sc.s1, sc.s2).Status)
	}
	sc.entry = func() map[string]any { return roundIn(b.t, b.workspace(w), sc.round) }
	sc.assignment = func(member, submission string) string {
		return str(assignmentOf(b.t, sc.entry(), member, submission), "id")
	}
	sc.answersURL = func(a string) string { return w.base + "/review-assignments/" + a + "/answers" }
	return sc
}

func answer(criterion string, numeric, text, option any) map[string]any {
	return map[string]any{"criterionId": criterion, "numericValue": numeric, "textValue": text, "optionValue": option}
}

func answers(list ...map[string]any) map[string]any {
	out := make([]any, len(list))
	for i, a := range list {
		out[i] = a
	}
	return map[string]any{"answers": out}
}

func TestReviewAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sc := b.scorecard()
	a := sc.assignment(sc.r1, sc.s1)
	url := sc.answersURL(a)
	other := b.saveRound(sc.w, roundBody("Other", numericCriterion("Elsewhere", 0, 1, 1, false)))
	foreign := str(criteriaOf(other)[0], "id")

	for name, tc := range map[string]struct {
		body          map[string]any
		status        int
		code, message string
	}{
		"RequiredMissing":   {answers(answer(sc.depth, 3, nil, nil)), 400, "invalid_input", "Quality is required"},
		"RequiredNull":      {answers(answer(sc.quality, nil, "text instead", nil)), 400, "invalid_input", "Quality is required"},
		"TooHigh":           {answers(answer(sc.quality, 6, nil, nil)), 400, "numeric_out_of_bounds", "Quality is outside its allowed range"},
		"TooLow":            {answers(answer(sc.quality, 3, nil, nil), answer(sc.depth, 0.5, nil, nil)), 400, "numeric_out_of_bounds", "Depth is outside its allowed range"},
		"NotAnOption":       {answers(answer(sc.quality, 3, nil, nil), answer(sc.verdict, nil, nil, "accept")), 400, "dropdown_value_not_in_options", "accept is not an option for Verdict"},
		"Twice":             {answers(answer(sc.quality, 3, nil, nil), answer(sc.quality, 4, nil, nil)), 400, "invalid_input", "Submit one answer per criterion"},
		"OtherRound":        {answers(answer(sc.quality, 3, nil, nil), answer(foreign, 1, nil, nil)), 403, "forbidden", ""},
		"UnknownCriterion":  {answers(answer(sc.quality, 3, nil, nil), answer("crit_0000000000000000000000000", 1, nil, nil)), 403, "forbidden", ""},
		"MissingTextKey":    {map[string]any{"answers": []any{map[string]any{"criterionId": sc.quality, "numericValue": 3, "optionValue": nil}}}, 400, "invalid_body", ""},
		"NumberAsString":    {answers(answer(sc.quality, "3", nil, nil)), 400, "invalid_body", ""},
		"MissingAnswersKey": {map[string]any{}, 400, "invalid_body", ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPost, url, b.acme, tc.body)
			b.requireError(r, tc.status, tc.code)
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage())
			}
		})
	}
	require.Zero(t, b.count(`SELECT count(*) FROM review_answers`), "refused answers are not stored")
	require.Equal(t, "pending", str(assignmentOf(t, sc.entry(), sc.r1, sc.s1), "status"))

	res := b.must(http.StatusOK, http.MethodPost, url, b.acme, answers(answer(sc.quality, 4, nil, nil),
		answer(sc.depth, 2, "ignored", nil), answer(sc.verdict, nil, nil, "Accept"), answer(sc.notes, nil, "Strong", nil))).Obj()
	require.Equal(t, a, res["id"])
	require.Equal(t, "completed", res["status"])
	require.NotNil(t, res["completedAt"])
	require.Equal(t, 4, b.count(`SELECT count(*) FROM review_answers WHERE assignment_id = $1`, a))
	require.Zero(t, b.count(`SELECT count(*) FROM review_answers WHERE text_value = 'ignored'`), "only the value of the criterion's type is kept")

	// Resubmitting replaces the answers.
	b.must(http.StatusOK, http.MethodPost, url, b.acme, answers(answer(sc.quality, 5, nil, nil)))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM review_answers WHERE assignment_id = $1`, a))

	// Recusal: completedAt cleared, answers refused, twice is a conflict.
	recuse := sc.w.base + "/review-assignments/" + a + "/recuse"
	b.requireError(b.do(http.MethodPost, recuse, b.acme, map[string]any{}), 400, "invalid_body")
	res = b.must(http.StatusOK, http.MethodPost, recuse, b.acme, map[string]any{"reason": " I co-wrote it "}).Obj()
	require.Equal(t, "recused", res["status"])
	require.Nil(t, res["completedAt"])
	require.NotNil(t, res["recusedAt"])
	require.Equal(t, "I co-wrote it", res["recusalReason"])
	b.requireError(b.do(http.MethodPost, recuse, b.acme, map[string]any{"reason": "again"}), 409, "already_recused")
	b.requireError(b.do(http.MethodPost, url, b.acme, answers(answer(sc.quality, 3, nil, nil))), 403, "forbidden")

	// Unknown and foreign assignments.
	b.requireError(b.do(http.MethodPost, sc.answersURL("asg_0000000000000000000000000"), b.acme, answers()), 404, "not_found")
	elsewhere := b.worldIn("Elsewhere 2")
	b.requireError(b.do(http.MethodPost, elsewhere.base+"/review-assignments/"+a+"/recuse", b.acme,
		map[string]any{"reason": "x"}), 404, "not_found")
	b.requireError(b.do(http.MethodPost, url, b.globex, answers()), 403, "forbidden")

	// A closed round takes no answers.
	update := roundBody("Main", numericCriterion("Quality", 1, 5, 2, true))
	update["criteria"].([]any)[0].(map[string]any)["id"] = sc.quality
	update["roundId"] = sc.round
	update["opensAt"], update["closesAt"] = at(-48*time.Hour), at(-time.Minute)
	require.Equal(t, "closed", roundOf(b.saveRound(sc.w, update))["status"])
	b.requireError(b.do(http.MethodPost, sc.answersURL(sc.assignment(sc.r2, sc.s1)), b.acme,
		answers(answer(sc.quality, 3, nil, nil))), 409, "round_closed")
}

func TestReviewResults(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sc := b.scorecard()
	submit := func(member, submission string, list ...map[string]any) {
		b.must(http.StatusOK, http.MethodPost, sc.answersURL(sc.assignment(member, submission)), b.acme, answers(list...))
	}
	// r1: Quality 4 (weight 2), Depth 2 (weight 1) → 3.33 alone.
	submit(sc.r1, sc.s1, answer(sc.quality, 4, nil, nil), answer(sc.depth, 2, nil, nil), answer(sc.verdict, nil, nil, "Reject"))
	entry := sc.entry()
	row := resultOf(t, entry, sc.s1)
	require.Equal(t, "3.33", row["weightedAggregate"].(interface{ String() string }).String())
	require.Equal(t, "Reject", row["recommendation"])
	require.EqualValues(t, jsonNum(3), row["reviewerCount"])
	require.EqualValues(t, jsonNum(1), row["completedCount"])
	require.Nil(t, row["aiResult"])
	require.Nil(t, row["aiOverriddenByName"])
	require.Len(t, row["humanReviews"], 3)
	var r1Review map[string]any
	for _, h := range objects(row["humanReviews"]) {
		if h["assignment"].(map[string]any)["eventMemberId"] == sc.r1 {
			r1Review = h
		}
	}
	require.Equal(t, "r1", r1Review["reviewerName"])
	require.Equal(t, "r1@example.test", r1Review["reviewerEmail"])
	require.Equal(t, []any{
		map[string]any{"criterionId": sc.quality, "label": "Quality", "type": "numeric", "numericValue": jsonNum(4), "textValue": nil, "optionValue": nil},
		map[string]any{"criterionId": sc.depth, "label": "Depth", "type": "numeric", "numericValue": jsonNum(2), "textValue": nil, "optionValue": nil},
		map[string]any{"criterionId": sc.verdict, "label": "Verdict", "type": "dropdown", "numericValue": nil, "textValue": nil, "optionValue": "Reject"},
	}, r1Review["answers"])
	row2 := resultOf(t, entry, sc.s2)
	require.Nil(t, row2["weightedAggregate"])
	require.Nil(t, row2["recommendation"])

	// r2 completes with Quality 5 → (8+2+10)/5 = 4; r3 submits then recuses: excluded.
	submit(sc.r2, sc.s1, answer(sc.quality, 5, nil, nil), answer(sc.verdict, nil, nil, "Accept"))
	submit(sc.r3, sc.s1, answer(sc.quality, 1, nil, nil), answer(sc.verdict, nil, nil, "Maybe"))
	b.must(http.StatusOK, http.MethodPost, sc.w.base+"/review-assignments/"+sc.assignment(sc.r3, sc.s1)+"/recuse", b.acme,
		map[string]any{"reason": "late conflict"})
	submit(sc.r1, sc.s2, answer(sc.quality, 3, nil, nil), answer(sc.verdict, nil, nil, "Reject"))
	entry = sc.entry()
	row = resultOf(t, entry, sc.s1)
	require.EqualValues(t, jsonNum(4), row["weightedAggregate"])
	require.Equal(t, "Reject, Accept", row["recommendation"])
	require.EqualValues(t, jsonNum(2), row["completedCount"])

	// Progress: r1 2/2 = 100; r2 1 of 2 = 50; r3 recused one, 0 of 1 = 0.
	progress := map[string][]int64{}
	for _, p := range objects(entry["progress"]) {
		progress[str(p, "email")] = []int64{num(t, p, "assigned"), num(t, p, "completed"), num(t, p, "recused"),
			num(t, p, "remaining"), num(t, p, "percentage")}
	}
	require.Equal(t, map[string][]int64{
		"r1@example.test": {2, 2, 0, 0, 100}, "r2@example.test": {2, 1, 0, 1, 50}, "r3@example.test": {2, 0, 1, 1, 0},
	}, progress)
	b.must(http.StatusOK, http.MethodPost, sc.w.base+"/review-assignments/"+sc.assignment(sc.r2, sc.s2)+"/recuse", b.acme,
		map[string]any{"reason": "x"})
	for _, p := range objects(sc.entry()["progress"]) {
		if p["email"] == "r2@example.test" {
			require.EqualValues(t, jsonNum(100), p["percentage"], "1 completed of 2 assigned with 1 recused")
		}
	}

	// The summaries: code order, tracks and participants.
	subs := objects(entry["submissions"])
	require.Len(t, subs, 2)
	require.Equal(t, sc.s1, subs[0]["id"])
	require.Equal(t, "SESS-1", subs[0]["code"])
	require.Equal(t, []any{sc.w.track1}, subs[0]["trackIds"])
	require.Equal(t, []any{"Go"}, subs[0]["trackNames"])
	require.Equal(t, "pending", subs[0]["status"])
	require.NotEmpty(t, subs[0]["submittedAt"])
	require.Equal(t, []any{map[string]any{"name": "Ada Lovelace", "role": "speaker", "contactId": sc.w.ada, "headshotUrl": nil}},
		subs[0]["participants"])
	reviewers := objects(entry["reviewers"])
	require.Equal(t, []string{"r1", "r2", "r3"}, []string{str(reviewers[0], "name"), str(reviewers[1], "name"), str(reviewers[2], "name")})

	// Manual sessions are not under review.
	b.createSession(sc.w, "Keynote", sc.w.alan)
	require.Len(t, sc.entry()["submissions"], 2)
}

func resultOf(t *testing.T, entry map[string]any, submission string) map[string]any {
	t.Helper()
	for _, r := range objects(entry["results"]) {
		if r["submission"].(map[string]any)["id"] == submission {
			return r
		}
	}
	require.Failf(t, "no result", "%s", submission)
	return nil
}

func TestBlindRoundHidesParticipants(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	body := speakerBody("linus@example.test")
	body["firstName"], body["lastName"], body["company"] = "Linus", "Kernel", "Initech"
	linus := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, body).Obj(), "id")
	s := b.proposeIn(w, "How Linus Kernel scaled Initech", "At INITECH, linus@example.test and Ada built it.", nil, linus, w.ada)

	blind := roundBody("Blind")
	blind["blind"] = true
	blindEntry := b.saveRound(w, blind)
	open := b.saveRound(w, roundBody("Open"))
	member := b.addReviewer(w, str(roundOf(blindEntry), "id"), "r@example.test", nil)
	b.assign(w, str(roundOf(blindEntry), "id"), member, s)

	ws := b.workspace(w)
	blindEntry = roundIn(t, ws, str(roundOf(blindEntry), "id"))
	open = roundIn(t, ws, str(roundOf(open), "id"))
	hidden := objects(blindEntry["submissions"])[0]
	require.Equal(t, "How [redacted] scaled [redacted]", hidden["title"])
	require.Equal(t, "At [redacted], [redacted] and [redacted] built it.", hidden["description"])
	require.Equal(t, []any{
		map[string]any{"name": "Speaker 1", "role": "speaker", "contactId": nil, "headshotUrl": nil},
		map[string]any{"name": "Speaker 2", "role": "speaker", "contactId": nil, "headshotUrl": nil},
	}, hidden["participants"])
	require.Equal(t, hidden, resultOf(t, blindEntry, s)["submission"])
	raw, err := json.Marshal(blindEntry)
	require.NoError(t, err)
	for _, leak := range []string{"linus", "kernel", "initech", "lovelace", linus, w.ada} {
		require.NotContains(t, strings.ToLower(string(raw)), strings.ToLower(leak))
	}

	shown := objects(open["submissions"])[0]
	require.Equal(t, "How Linus Kernel scaled Initech", shown["title"])
	require.Equal(t, "Linus Kernel", objects(shown["participants"])[0]["name"])
	require.Equal(t, linus, objects(shown["participants"])[0]["contactId"])
}

func TestReviewReminders(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	sc := b.scorecard()
	// r1 completes both, r2 one, r3 none.
	submitAll := func(member, submission string) {
		b.must(http.StatusOK, http.MethodPost, sc.answersURL(sc.assignment(member, submission)), b.acme,
			answers(answer(sc.quality, 3, nil, nil)))
	}
	submitAll(sc.r1, sc.s1)
	submitAll(sc.r1, sc.s2)
	submitAll(sc.r2, sc.s1)
	url := sc.w.base + "/review-rounds/" + sc.round + "/reminders"
	res := b.must(http.StatusOK, http.MethodPost, url, b.acme,
		map[string]any{"eventMemberIds": []any{sc.r1, sc.r2, sc.r3, sc.r3, "emb_0000000000000000000000000", "junk"}}).Obj()
	require.Equal(t, map[string]any{"queued": jsonNum(2), "sent": jsonNum(0), "failed": jsonNum(0)}, res)
	msgs := b.sink.Wait(t, 5, 10*time.Second) // three invitations, two reminders
	got := map[string]string{}
	for _, m := range msgs {
		subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
		require.NoError(t, err)
		if !strings.Contains(subject, "waiting") {
			continue
		}
		got[m.To[0]] = subject
		require.Contains(t, m.Text, `"Main"`)
		require.Contains(t, m.Text, "https://podium.example.test/auth/link?token=")
		require.Contains(t, m.Text, "&next=%2Freviews")
	}
	require.Equal(t, map[string]string{
		"r2@example.test": "1 review is waiting for you — World",
		"r3@example.test": "2 reviews are waiting for you — World",
	}, got)
	require.Equal(t, map[string]any{"queued": jsonNum(0), "sent": jsonNum(0), "failed": jsonNum(0)},
		b.must(http.StatusOK, http.MethodPost, url, b.acme, map[string]any{"eventMemberIds": []any{}}).Obj())
	b.requireError(b.do(http.MethodPost, url, b.globex, map[string]any{"eventMemberIds": []any{sc.r3}}), 403, "forbidden")
}

func TestReviewsOverGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sc := b.scorecard()
	b.must(http.StatusOK, http.MethodPost, sc.answersURL(sc.assignment(sc.r1, sc.s1)), b.acme,
		answers(answer(sc.quality, 2, nil, nil), answer(sc.notes, nil, "Needs work", nil)))
	b.must(http.StatusOK, http.MethodPost, sc.answersURL(sc.assignment(sc.r1, sc.s2)), b.acme,
		answers(answer(sc.quality, 5, nil, nil)))

	data := b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) { evaluation { eventId rounds {
	  configuration { round { id name status blind } criteria { label type weight } members { eventMemberId } }
	  assignments(status: completed) { id status submission { id code title participants { name } }
	    reviewer { name email } answers { label numericValue textValue } }
	  results(orderBy: {field: WEIGHTED_AGGREGATE, direction: DESC}) { submission { code } weightedAggregate completedCount }
	  progress { name percentage } } } } }`, map[string]any{"id": sc.w.event})
	rounds := data["event"].(map[string]any)["evaluation"].(map[string]any)["rounds"].([]any)
	require.Len(t, rounds, 1)
	r := rounds[0].(map[string]any)
	assignments := objects(r["assignments"])
	require.Len(t, assignments, 2)
	for _, a := range assignments {
		require.Equal(t, "completed", a["status"])
		require.Equal(t, map[string]any{"name": "r1", "email": "r1@example.test"}, a["reviewer"])
		if a["submission"].(map[string]any)["id"] == sc.s1 {
			require.Equal(t, "Generics in practice", a["submission"].(map[string]any)["title"])
			require.Equal(t, []any{
				map[string]any{"label": "Quality", "numericValue": 2.0, "textValue": nil},
				map[string]any{"label": "Notes", "numericValue": nil, "textValue": "Needs work"},
			}, a["answers"])
		}
	}
	results := objects(r["results"])
	require.Equal(t, "SESS-2", results[0]["submission"].(map[string]any)["code"], "highest aggregate first")
	require.Equal(t, 5.0, results[0]["weightedAggregate"])

	// Mutations run the same code with the same codes.
	res := b.gql(b.acme, `mutation($e: ID!, $r: ID!, $m: ID!, $s: ID!) {
	  assignReviews(eventId: $e, roundId: $r, input: {eventMemberId: $m, submissionIds: [$s]}) { created skipped } }`,
		map[string]any{"e": sc.w.event, "r": "rnd_0000000000000000000000000", "m": sc.r1, "s": sc.s1})
	require.Equal(t, []string{"not_found"}, res.Codes())
	res = b.gql(b.acme, `mutation($e: ID!, $a: ID!) { recuseReview(eventId: $e, assignmentId: $a, input: {reason: "x"}) {
	  status submission { code } reviewer { name } answers { label } } }`,
		map[string]any{"e": sc.w.event, "a": sc.assignment(sc.r1, sc.s1)})
	require.Empty(t, res.Errors, res.Raw)
	rec := res.Data["recuseReview"].(map[string]any)
	require.Equal(t, "recused", rec["status"])
	require.Equal(t, "SESS-1", rec["submission"].(map[string]any)["code"])
	require.Len(t, rec["answers"], 2)
	res = b.gql(b.acme, `mutation($e: ID!) { saveReviewRound(eventId: $e, input: {roundId: null, name: "X",
	  opensAt: "2027-01-01T00:00:00Z", closesAt: "2027-02-01T00:00:00Z", blind: false, reviewsPerSubmission: 11, position: 1,
	  criteria: []}) { roundId } }`, map[string]any{"e": sc.w.event})
	require.Equal(t, []string{"invalid_body"}, res.Codes())
	res = b.gql(b.globex, `query($id: ID!) { event(id: $id) { evaluation { eventId } } }`, map[string]any{"id": sc.w.event})
	require.Equal(t, []string{"forbidden"}, res.Codes())
	// One round by id.
	one := b.gqlOK(b.acme, `query($id: ID!, $r: ID!) { event(id: $id) { reviewRound(id: $r) { configuration { round { name } } } } }`,
		map[string]any{"id": sc.w.event, "r": sc.round})
	require.Equal(t, "Main", one["event"].(map[string]any)["reviewRound"].(map[string]any)["configuration"].(map[string]any)["round"].(map[string]any)["name"])
}
