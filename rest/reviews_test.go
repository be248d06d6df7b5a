package rest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Review tests run against PostgreSQL through the real router (docs/rest-api.md §4 "Reviews").

const millisLayout = "2006-01-02T15:04:05.000Z07:00"

func at(d time.Duration) string { return time.Now().Add(d).UTC().Format(millisLayout) }

func numericCriterion(label string, lo, hi, weight float64, required bool) map[string]any {
	return map[string]any{"id": nil, "label": label, "type": "numeric", "min": lo, "max": hi, "options": []any{},
		"required": required, "weight": weight, "position": 1}
}

func dropdownCriterion(label string, options ...any) map[string]any {
	return map[string]any{"id": nil, "label": label, "type": "dropdown", "min": nil, "max": nil, "options": options,
		"required": false, "weight": 1, "position": 1}
}

func textCriterion(label string) map[string]any {
	return map[string]any{"id": nil, "label": label, "type": "text", "min": nil, "max": nil, "options": []any{},
		"required": false, "weight": 1, "position": 1}
}

// roundBody is a round open from an hour ago to tomorrow.
func roundBody(name string, criteria ...map[string]any) map[string]any {
	list := make([]any, len(criteria))
	for i, c := range criteria {
		list[i] = c
	}
	return map[string]any{"roundId": nil, "name": name, "opensAt": at(-time.Hour), "closesAt": at(24 * time.Hour),
		"blind": false, "reviewsPerSubmission": 2, "position": 1, "criteria": list}
}

// saveRound saves a round and returns its entry of the workspace.
func (b *testBundle) saveRound(w world, body map[string]any) map[string]any {
	b.t.Helper()
	res := b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds", b.acme, body).Obj()
	return roundIn(b.t, res["workspace"].(map[string]any), str(res, "roundId"))
}

// roundIn finds a round's entry in a workspace.
func roundIn(t *testing.T, ws map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range ws["rounds"].([]any) {
		entry := r.(map[string]any)
		if str(entry["configuration"].(map[string]any)["round"].(map[string]any), "id") == id {
			return entry
		}
	}
	require.Failf(t, "round not in workspace", "%s", id)
	return nil
}

func roundOf(entry map[string]any) map[string]any {
	return entry["configuration"].(map[string]any)["round"].(map[string]any)
}

func criteriaOf(entry map[string]any) []map[string]any {
	return objects(entry["configuration"].(map[string]any)["criteria"])
}

func objects(v any) []map[string]any {
	var out []map[string]any
	for _, o := range v.([]any) {
		out = append(out, o.(map[string]any))
	}
	return out
}

// workspace loads GET E/evaluation.
func (b *testBundle) workspace(w world) map[string]any {
	b.t.Helper()
	return b.must(http.StatusOK, http.MethodGet, w.base+"/evaluation", b.acme, nil).Obj()
}

// addReviewer adds a reviewer to a round and returns their event member id.
func (b *testBundle) addReviewer(w world, roundID, email string, assignmentCap any) string {
	b.t.Helper()
	res := b.must(http.StatusCreated, http.MethodPost, w.base+"/review-rounds/"+roundID+"/members", b.acme,
		map[string]any{"email": email, "assignmentCap": assignmentCap, "accessPath": "/reviews/" + roundID}).Obj()
	return str(res["reviewer"].(map[string]any)["member"].(map[string]any), "eventMemberId")
}

// assign assigns submissions to a reviewer.
func (b *testBundle) assign(w world, roundID, memberID string, submissions ...string) response {
	b.t.Helper()
	ids := make([]any, len(submissions))
	for i, s := range submissions {
		ids[i] = s
	}
	return b.do(http.MethodPost, w.base+"/review-rounds/"+roundID+"/assignments", b.acme,
		map[string]any{"eventMemberId": memberID, "submissionIds": ids})
}

// assignmentOf finds the assignment of a reviewer and a submission in a workspace round entry.
func assignmentOf(t *testing.T, entry map[string]any, memberID, submissionID string) map[string]any {
	t.Helper()
	for _, a := range objects(entry["assignments"]) {
		if a["eventMemberId"] == memberID && a["submissionId"] == submissionID {
			return a
		}
	}
	require.Failf(t, "no assignment", "%s / %s", memberID, submissionID)
	return nil
}

// proposeIn proposes a submission in the given tracks.
func (b *testBundle) proposeIn(w world, title, description string, tracks []string, speakers ...string) string {
	b.t.Helper()
	var format any
	if w.format != "" {
		format = w.format
	}
	return str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": title, "description": description, "formatId": format, "trackIds": anys(tracks),
		"speakerIds": anys(speakers)}).Obj(), "id")
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (b *testBundle) count(sql string, args ...any) int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.db.System.QueryRow(b.sys(), sql, args...).Scan(&n))
	return n
}

func TestReviewRoundValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	other := b.saveRound(b.worldIn("Other"), roundBody("Elsewhere"))
	before := b.count(`SELECT count(*) FROM review_rounds`)

	body := func(edit func(m map[string]any)) map[string]any {
		m := roundBody("Round 1", numericCriterion("Depth", 1, 5, 1, true), dropdownCriterion("Verdict", "Yes", "No"))
		edit(m)
		return m
	}
	criterion := func(i int, key string, v any) func(m map[string]any) {
		return func(m map[string]any) { m["criteria"].([]any)[i].(map[string]any)[key] = v }
	}
	for name, tc := range map[string]struct {
		edit          func(m map[string]any)
		status        int
		code, message string
	}{
		"NoReviewsPerSubmission": {func(m map[string]any) { m["reviewsPerSubmission"] = 0 }, 400, "invalid_body", "reviewsPerSubmission must be a whole number from 1 to 10"},
		"TooManyReviews":         {func(m map[string]any) { m["reviewsPerSubmission"] = 11 }, 400, "invalid_body", ""},
		"FractionalReviews":      {func(m map[string]any) { m["reviewsPerSubmission"] = 2.5 }, 400, "invalid_body", ""},
		"MissingCriteria":        {func(m map[string]any) { delete(m, "criteria") }, 400, "invalid_body", "criteria is required"},
		"MissingRoundID":         {func(m map[string]any) { delete(m, "roundId") }, 400, "invalid_body", "roundId is required"},
		"UnknownType":            {criterion(0, "type", "stars"), 400, "invalid_body", ""},
		"BlankName":              {func(m map[string]any) { m["name"] = "  " }, 400, "invalid_input", "Name this review round"},
		"PositionZero":           {func(m map[string]any) { m["position"] = 0 }, 400, "invalid_input", "Round position must be a whole number of at least 1"},
		"BadOpensAt":             {func(m map[string]any) { m["opensAt"] = "soon" }, 400, "invalid_input", "opensAt is not a valid ISO date"},
		"ClosesBeforeOpens":      {func(m map[string]any) { m["closesAt"] = at(-2 * time.Hour) }, 400, "invalid_input", "Close time must be after open time"},
		"ClosesWhenOpens":        {func(m map[string]any) { m["closesAt"] = m["opensAt"] }, 400, "invalid_input", "Close time must be after open time"},
		"BlankLabel":             {criterion(1, "label", " "), 400, "invalid_input", "Name every scorecard criterion"},
		"DuplicateLabel":         {criterion(1, "label", " depth"), 400, "invalid_input", "Criterion names must be unique"},
		"MinAboveMax":            {criterion(0, "min", 6), 400, "invalid_input", "Depth needs a minimum below its maximum"},
		"MinEqualsMax":           {criterion(0, "min", 5), 400, "invalid_input", "Depth needs a minimum below its maximum"},
		"NoMin":                  {criterion(0, "min", nil), 400, "invalid_input", "Depth needs a minimum below its maximum"},
		"ZeroWeight":             {criterion(0, "weight", 0), 400, "invalid_input", "Depth needs a positive weight"},
		"NegativeWeight":         {criterion(0, "weight", -1), 400, "invalid_input", "Depth needs a positive weight"},
		"OneOption":              {criterion(1, "options", []any{"Yes", " ", ""}), 400, "invalid_input", "Verdict needs at least two unique options"},
		"SameOptions":            {criterion(1, "options", []any{"Yes", "yes "}), 400, "invalid_input", "Verdict needs at least two unique options"},
		"RoundOfAnotherEvent":    {func(m map[string]any) { m["roundId"] = str(roundOf(other), "id") }, 403, "forbidden", "This round does not belong to the event"},
		"UnknownRound":           {func(m map[string]any) { m["roundId"] = "rnd_0000000000000000000000000" }, 403, "forbidden", ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPost, w.base+"/review-rounds", b.acme, body(tc.edit))
			b.requireError(r, tc.status, tc.code)
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage())
			}
		})
	}
	require.Equal(t, before, b.count(`SELECT count(*) FROM review_rounds`), "a refused round was stored")
	require.Zero(t, b.count(`SELECT count(*) FROM review_criteria c JOIN review_rounds r ON r.id = c.round_id WHERE r.event_id = $1`, w.event))

	// Another organization's key cannot save a round in this event.
	b.requireError(b.do(http.MethodPost, w.base+"/review-rounds", b.globex, body(func(map[string]any) {})), 403, "forbidden")
}

// worldIn is a bare event of acme.
func (b *testBundle) worldIn(name string) world {
	b.t.Helper()
	w := world{event: str(b.createEvent(b.acme, name), "id")}
	w.base = "/api/v1/events/" + w.event
	return w
}

func TestReviewRoundSave(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()

	body := roundBody(" Round 1 ", numericCriterion(" Depth ", 1, 5, 2, true),
		dropdownCriterion("Verdict", " Accept ", "Reject", ""), textCriterion("Notes"))
	body["criteria"].([]any)[0].(map[string]any)["options"] = []any{"ignored"}
	body["criteria"].([]any)[1].(map[string]any)["weight"] = 5
	body["criteria"].([]any)[1].(map[string]any)["min"] = 1
	body["criteria"].([]any)[2].(map[string]any)["position"] = 9
	res := b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds", b.acme, body).Obj()
	roundID := str(res, "roundId")
	ws := res["workspace"].(map[string]any)
	require.Equal(t, w.event, ws["eventId"])
	require.Equal(t, false, ws["aiConfigured"])
	require.Len(t, ws["tracks"], 2)
	entry := roundIn(t, ws, roundID)
	round := roundOf(entry)
	require.Equal(t, "Round 1", round["name"])
	require.Equal(t, "open", round["status"])
	require.Equal(t, w.event, round["eventId"])
	require.EqualValues(t, jsonNum(2), round["reviewsPerSubmission"])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, round["opensAt"])

	criteria := criteriaOf(entry)
	require.Len(t, criteria, 3)
	depth, verdict, notes := criteria[0], criteria[1], criteria[2]
	require.Equal(t, "Depth", depth["label"])
	require.Equal(t, []any{}, depth["options"])
	require.EqualValues(t, jsonNum(2), depth["weight"])
	require.Equal(t, true, depth["required"])
	require.Equal(t, []any{"Accept", "Reject"}, verdict["options"])
	require.EqualValues(t, jsonNum(1), verdict["weight"])
	require.Nil(t, verdict["min"])
	require.Nil(t, verdict["max"])
	require.Equal(t, "text", notes["type"])
	for i, c := range criteria {
		require.EqualValues(t, jsonNum(i+1), c["position"])
		require.Equal(t, roundID, c["roundId"])
	}

	// Replace the scorecard: keep Depth (renamed) and Notes, drop Verdict, add Relevance first, and
	// try to take over another round's criterion, which is dropped.
	other := b.saveRound(w, roundBody("Round 2", numericCriterion("Foreign", 0, 10, 1, false)))
	foreign := criteriaOf(other)[0]
	keptDepth := numericCriterion("Depth of content", 0, 10, 3, false)
	keptDepth["id"] = depth["id"]
	keptNotes := textCriterion("Notes")
	keptNotes["id"] = notes["id"]
	stolen := numericCriterion("Stolen", 0, 1, 1, false)
	stolen["id"] = foreign["id"]
	update := roundBody("Round 1", numericCriterion("Relevance", 1, 3, 1, false), keptDepth, stolen, keptNotes)
	update["roundId"] = roundID
	update["blind"] = true
	update["position"] = 2
	entry = b.saveRound(w, update)
	criteria = criteriaOf(entry)
	labels := []string{}
	for _, c := range criteria {
		labels = append(labels, str(c, "label"))
	}
	require.Equal(t, []string{"Relevance", "Depth of content", "Notes"}, labels)
	require.NotEqual(t, depth["id"], criteria[0]["id"])
	require.Equal(t, depth["id"], criteria[1]["id"], "a kept criterion keeps its id")
	require.Equal(t, notes["id"], criteria[2]["id"])
	require.EqualValues(t, jsonNum(2), criteria[1]["position"])
	require.EqualValues(t, jsonNum(3), criteria[1]["weight"])
	require.Equal(t, true, roundOf(entry)["blind"])
	require.Zero(t, b.count(`SELECT count(*) FROM review_criteria WHERE id = $1`, verdict["id"]), "a criterion left out is deleted")
	require.Equal(t, "Foreign", str(criteriaOf(roundIn(t, b.workspace(w), str(roundOf(other), "id")))[0], "label"),
		"another round's criterion is untouched")

	// Rounds are listed by position; the status follows the window.
	future := roundBody("Later")
	future["opensAt"], future["closesAt"] = at(48*time.Hour), at(72*time.Hour)
	require.Equal(t, "draft", roundOf(b.saveRound(w, future))["status"])
	past := roundBody("Earlier")
	past["opensAt"], past["closesAt"] = at(-72*time.Hour), at(-48*time.Hour)
	require.Equal(t, "closed", roundOf(b.saveRound(w, past))["status"])
	names := []string{}
	for _, e := range objects(b.workspace(w)["rounds"]) {
		names = append(names, str(roundOf(e), "name"))
	}
	require.Equal(t, []string{"Round 2", "Later", "Earlier", "Round 1"}, names)

	// Other organizations see nothing of it.
	b.requireError(b.do(http.MethodGet, w.base+"/evaluation", b.globex, nil), 403, "forbidden")
}

func TestReviewerPool(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	round := str(roundOf(b.saveRound(w, roundBody("Round 1"))), "id")
	second := str(roundOf(b.saveRound(w, roundBody("Round 2"))), "id")
	members := w.base + "/review-rounds/" + round + "/members"

	res := b.must(http.StatusCreated, http.MethodPost, members, b.acme,
		map[string]any{"email": " Rev.One@Example.test ", "assignmentCap": nil, "accessPath": "/reviews/" + round}).Obj()
	reviewer := res["reviewer"].(map[string]any)
	member := reviewer["member"].(map[string]any)
	require.Equal(t, "rev.one@example.test", reviewer["email"])
	require.Equal(t, "rev.one", reviewer["name"])
	require.Equal(t, round, member["roundId"])
	require.Nil(t, member["assignmentCap"])
	require.Equal(t, false, res["alreadyInPool"])
	require.Equal(t, true, res["invitationLogged"])
	require.Equal(t, "/reviews/"+round, res["accessPath"])
	logID := str(res, "invitationLogId")
	require.NotEmpty(t, logID)
	memberID := str(member, "eventMemberId")
	require.Equal(t, 1, b.count(`SELECT count(*) FROM users WHERE email = 'rev.one@example.test'`))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM event_members WHERE id = $1 AND role = 'reviewer' AND event_id = $2`, memberID, w.event))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM organization_members WHERE organization_id = $1`, b.acmeOrg))

	msg := b.sink.Wait(t, 1, 10*time.Second)[0]
	require.Equal(t, []string{"rev.one@example.test"}, msg.To)
	require.Contains(t, msg.Text, "Round 1")
	require.Contains(t, msg.Text, "https://podium.example.test/auth/link?token=")
	require.Contains(t, msg.Text, "&next="+url.QueryEscape("/reviews/"+round), "a one-click sign-in link to the round")
	emails := b.must(http.StatusOK, http.MethodGet, w.base+"/emails", b.acme, nil).List()
	require.Equal(t, logID, str(emails[0].(map[string]any), "id"))
	require.Equal(t, "custom", str(emails[0].(map[string]any), "type"))

	// Adding again updates the cap and sends nothing.
	res = b.must(http.StatusCreated, http.MethodPost, members, b.acme,
		map[string]any{"email": "rev.one@example.test", "assignmentCap": 3, "accessPath": "https://review.example.test/x"}).Obj()
	require.Equal(t, true, res["alreadyInPool"])
	require.Equal(t, false, res["invitationLogged"])
	require.Nil(t, res["invitationLogId"])
	require.EqualValues(t, jsonNum(3), res["reviewer"].(map[string]any)["member"].(map[string]any)["assignmentCap"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM email_log WHERE recipient = 'rev.one@example.test'`))

	// A second round's pool is separate: the same reviewer is invited to it, with the same member.
	res = b.must(http.StatusCreated, http.MethodPost, w.base+"/review-rounds/"+second+"/members", b.acme,
		map[string]any{"email": "rev.one@example.test", "assignmentCap": nil, "accessPath": "https://review.example.test/2"}).Obj()
	require.Equal(t, false, res["alreadyInPool"])
	require.Equal(t, memberID, str(res["reviewer"].(map[string]any)["member"].(map[string]any), "eventMemberId"))
	msgs := b.sink.Wait(t, 2, 10*time.Second)
	require.Contains(t, msgs[0].Text+msgs[1].Text, "https://review.example.test/2")

	for name, tc := range map[string]struct {
		body          map[string]any
		status        int
		code, message string
	}{
		"CapZero":      {map[string]any{"email": "x@example.test", "assignmentCap": 0, "accessPath": "/r"}, 400, "invalid_input", "Assignment cap must be a whole number of at least 1"},
		"BadEmail":     {map[string]any{"email": "not an email", "assignmentCap": nil, "accessPath": "/r"}, 400, "invalid_input", "Enter a valid email"},
		"ScriptPath":   {map[string]any{"email": "x@example.test", "assignmentCap": nil, "accessPath": "javascript:alert(1)"}, 400, "invalid_input", ""},
		"NoCapKey":     {map[string]any{"email": "x@example.test", "accessPath": "/r"}, 400, "invalid_body", ""},
		"FractionCap":  {map[string]any{"email": "x@example.test", "assignmentCap": 1.5, "accessPath": "/r"}, 400, "invalid_body", ""},
		"MissingEmail": {map[string]any{"assignmentCap": nil, "accessPath": "/r"}, 400, "invalid_body", ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPost, members, b.acme, tc.body)
			b.requireError(r, tc.status, tc.code)
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage())
			}
		})
	}
	require.Zero(t, b.count(`SELECT count(*) FROM users WHERE email = 'x@example.test'`))
	b.requireError(b.do(http.MethodPost, w.base+"/review-rounds/rnd_0000000000000000000000000/members", b.acme,
		map[string]any{"email": "x@example.test", "assignmentCap": nil, "accessPath": "/r"}), 404, "not_found")
	b.requireError(b.do(http.MethodPost, members, b.globex,
		map[string]any{"email": "x@example.test", "assignmentCap": nil, "accessPath": "/r"}), 403, "forbidden")

	// Reviewer tracks.
	tracks := b.must(http.StatusOK, http.MethodGet, w.base+"/reviewer-tracks", b.acme, nil).List()
	require.Equal(t, []any{map[string]any{"eventMemberId": memberID, "trackIds": []any{}}}, tracks)
	set := b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+memberID, b.acme,
		map[string]any{"trackIds": []any{w.track2, w.track1, w.track2}}).Obj()
	want := []string{w.track1, w.track2}
	sortStrings(want)
	require.Equal(t, map[string]any{"eventMemberId": memberID, "trackIds": anys(want)}, set)
	require.Equal(t, []any{set}, b.must(http.StatusOK, http.MethodGet, w.base+"/reviewer-tracks", b.acme, nil).List())
	elsewhere := b.worldIn("Elsewhere 2")
	foreignTrack := str(b.saveItem(b.acme, elsewhere.event, map[string]any{"kind": "track", "name": "F"}), "id")
	r := b.do(http.MethodPut, w.base+"/reviewer-tracks/"+memberID, b.acme, map[string]any{"trackIds": []any{foreignTrack}})
	b.requireError(r, 400, "invalid_input")
	require.Equal(t, "Choose tracks from this event", r.ErrMessage())
	b.requireError(b.do(http.MethodPut, w.base+"/reviewer-tracks/emb_0000000000000000000000000", b.acme,
		map[string]any{"trackIds": []any{}}), 404, "not_found")
	b.requireError(b.do(http.MethodPut, elsewhere.base+"/reviewer-tracks/"+memberID, b.acme,
		map[string]any{"trackIds": []any{}}), 404, "not_found")
	b.requireError(b.do(http.MethodGet, w.base+"/reviewer-tracks", b.globex, nil), 403, "forbidden")
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+memberID, b.acme,
		map[string]any{"trackIds": []any{}}).Obj()["trackIds"])
}

func TestReviewAssignments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	s1 := b.proposeIn(w, "One", "d", nil, w.ada)
	s2 := b.proposeIn(w, "Two", "d", nil, w.grace)
	s3 := b.proposeIn(w, "Three", "d", nil, w.alan)
	round := str(roundOf(b.saveRound(w, roundBody("Round 1"))), "id")
	r1 := b.addReviewer(w, round, "r1@example.test", 2)
	r2 := b.addReviewer(w, round, "r2@example.test", nil)

	res := b.assign(w, round, r1, s1, s2, s1)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, map[string]any{"created": jsonNum(2), "skipped": jsonNum(0)}, res.Obj())
	res = b.assign(w, round, r1, s1)
	require.Equal(t, map[string]any{"created": jsonNum(0), "skipped": jsonNum(1)}, res.Obj())

	// At cap: refused as a whole.
	before := b.count(`SELECT count(*) FROM review_assignments`)
	b.requireError(b.assign(w, round, r1, s3), 409, "assignment_cap_exceeded")
	require.Equal(t, before, b.count(`SELECT count(*) FROM review_assignments`))
	r2res := b.assign(w, round, r2, s1, s2, s3)
	require.EqualValues(t, jsonNum(3), r2res.Obj()["created"])

	// A recused assignment frees a place under the cap.
	entry := roundIn(t, b.workspace(w), round)
	a1 := assignmentOf(t, entry, r1, s1)
	require.Equal(t, "pending", a1["status"])
	require.NotEmpty(t, a1["assignedAt"])
	require.Nil(t, a1["completedAt"])
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+str(a1, "id")+"/recuse", b.acme, map[string]any{"reason": "Conflict"})
	require.EqualValues(t, jsonNum(1), b.assign(w, round, r1, s3).Obj()["created"])

	// Not found: a reviewer outside the pool, a submission of another event, a round elsewhere.
	elsewhere := b.worldIn("Elsewhere 2")
	foreign := b.proposeIn(elsewhere, "Foreign", "d", nil, b.speaker(elsewhere.base, "F", "Oreign", "f@example.test"))
	b.requireError(b.assign(w, round, "emb_0000000000000000000000000", s1), 404, "not_found")
	b.requireError(b.assign(w, round, r2, foreign), 404, "not_found")
	b.requireError(b.assign(w, "rnd_0000000000000000000000000", r2, s1), 404, "not_found")
	b.requireError(b.assign(w, round, r2, "not an id"), 404, "not_found")

	// A round outside its window takes no assignments.
	closed := roundBody("Closed")
	closed["opensAt"], closed["closesAt"] = at(-48*time.Hour), at(-24*time.Hour)
	closedID := str(roundOf(b.saveRound(w, closed)), "id")
	cr := b.addReviewer(w, closedID, "r1@example.test", nil)
	b.requireError(b.assign(w, closedID, cr, s1), 409, "round_closed")
	draft := roundBody("Draft")
	draft["opensAt"], draft["closesAt"] = at(24*time.Hour), at(48*time.Hour)
	draftID := str(roundOf(b.saveRound(w, draft)), "id")
	b.addReviewer(w, draftID, "r1@example.test", nil)
	b.requireError(b.assign(w, draftID, cr, s1), 409, "round_closed")
	b.requireError(b.do(http.MethodPost, w.base+"/review-rounds/"+closedID+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{}}), 409, "round_closed")

	// Unassign.
	a2 := assignmentOf(t, roundIn(t, b.workspace(w), round), r2, s2)
	path := w.base + "/review-rounds/" + round + "/assignments/" + str(a2, "id")
	b.requireError(b.do(http.MethodDelete, path, b.globex, nil), 403, "forbidden")
	b.requireError(b.do(http.MethodDelete, w.base+"/review-rounds/"+closedID+"/assignments/"+str(a2, "id"), b.acme, nil), 404, "not_found")
	r := b.do(http.MethodDelete, path, b.acme, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	require.Empty(t, r.Raw)
	b.requireError(b.do(http.MethodDelete, path, b.acme, nil), 404, "not_found")
	s4 := b.proposeIn(w, "Four", "d", nil, w.alan)
	b.requireError(b.assign(w, round, r1, s4), 409, "assignment_cap_exceeded")
}

func TestAutoDistribute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	// Five pending submissions in the Go track (track1), one in Data, one draft, one maybe.
	var goSubs []string
	for _, title := range []string{"A", "B", "C", "D", "E"} {
		goSubs = append(goSubs, b.proposeIn(w, title, "d", []string{w.track1}, w.grace))
	}
	data := b.proposeIn(w, "Data", "d", []string{w.track2}, w.ada)
	maybe := b.proposeIn(w, "Maybe", "d", nil, w.alan)
	b.must(http.StatusOK, http.MethodPatch, w.base+"/submissions/"+maybe, b.acme, map[string]any{"status": "maybe"})
	draft := b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": "Draft", "description": "d", "formatId": nil, "trackIds": []any{}, "speakerIds": []any{w.alan},
		"status": "draft"}).Obj()

	body := roundBody("Round 1")
	body["reviewsPerSubmission"] = 2
	round := str(roundOf(b.saveRound(w, body)), "id")
	goExpert := b.addReviewer(w, round, "go@example.test", nil)
	b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+goExpert, b.acme, map[string]any{"trackIds": []any{w.track1}})
	dataExpert := b.addReviewer(w, round, "data@example.test", 3)
	b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+dataExpert, b.acme, map[string]any{"trackIds": []any{w.track2}})
	generalist := b.addReviewer(w, round, "gen@example.test", nil)
	// Grace reviews too: she cannot review her own proposals.
	grace := b.addReviewer(w, round, "grace@example.test", nil)

	url := w.base + "/review-rounds/" + round + "/auto-distribute"
	dry := b.must(http.StatusOK, http.MethodPost, url, b.acme, map[string]any{"trackIds": []any{}, "dryRun": true}).Obj()
	require.Zero(t, b.count(`SELECT count(*) FROM review_assignments`), "a dry run writes nothing")
	again := b.must(http.StatusOK, http.MethodPost, url, b.acme, map[string]any{"trackIds": []any{}, "dryRun": true}).Obj()
	require.Equal(t, dry, again, "the same input gives the same plan")

	planned := objects(dry["planned"])
	require.Len(t, planned, 14, "7 submissions × 2 reviewers")
	pairs := map[string][]string{}
	load := map[string]int{}
	for _, p := range planned {
		pairs[str(p, "submissionId")] = append(pairs[str(p, "submissionId")], str(p, "eventMemberId"))
		load[str(p, "eventMemberId")]++
		if p["eventMemberId"] == grace {
			require.NotContains(t, goSubs, p["submissionId"], "Grace is never planned for her own proposals")
		}
	}
	require.NotContains(t, pairs, str(draft, "id"))
	require.Contains(t, pairs, maybe)
	// The Go expert is first choice for every Go submission; the Data expert for Data, within cap.
	for _, s := range goSubs {
		require.Equal(t, goExpert, pairs[s][0])
	}
	require.Equal(t, dataExpert, pairs[data][0])
	require.LessOrEqual(t, load[dataExpert], 3)
	require.Equal(t, 5, int(num(t, dry, "conflictsSkipped")), "Grace is in conflict with her five proposals")
	require.Empty(t, dry["shortfalls"])
	for _, p := range planned {
		switch {
		case p["eventMemberId"] == goExpert && p["submissionId"] != data && p["submissionId"] != maybe:
			require.Equal(t, "in_track", p["tier"])
		case p["eventMemberId"] == generalist:
			require.Equal(t, "generalist", p["tier"])
		}
	}
	require.Equal(t, int(num(t, dry, "outOfTrack")), countTier(planned, "out_of_track"))

	res := b.must(http.StatusOK, http.MethodPost, url, b.acme, map[string]any{"trackIds": []any{}}).Obj()
	require.Equal(t, dry["planned"], res["planned"])
	require.EqualValues(t, jsonNum(14), res["created"])
	require.EqualValues(t, jsonNum(0), res["skipped"])
	require.Equal(t, 14, b.count(`SELECT count(*) FROM review_assignments WHERE round_id = $1`, round))
	res = b.must(http.StatusOK, http.MethodPost, url, b.acme, map[string]any{"trackIds": []any{}}).Obj()
	require.EqualValues(t, jsonNum(0), res["created"], "a repeat run creates nothing")
	require.Empty(t, res["planned"])

	// Shortfalls: a round whose only reviewer is Grace, on Data (Ada's) and Go (Grace's) proposals.
	body = roundBody("Round 2")
	body["reviewsPerSubmission"] = 1
	round2 := str(roundOf(b.saveRound(w, body)), "id")
	b.addReviewer(w, round2, "grace@example.test", nil)
	res = b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round2+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{w.track1}, "dryRun": true}).Obj()
	require.Empty(t, res["planned"], "only Go submissions were asked for, all Grace's")
	shortfalls := objects(res["shortfalls"])
	require.Len(t, shortfalls, 5)
	for _, s := range shortfalls {
		require.Equal(t, "conflicts", s["reason"])
		require.EqualValues(t, jsonNum(1), s["missing"])
		require.True(t, strings.HasPrefix(str(s, "code"), "SESS-"))
	}
	res = b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round2+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{w.track2}}).Obj()
	require.Len(t, res["planned"], 1)
	require.EqualValues(t, jsonNum(1), res["created"])

	body = roundBody("Round 3")
	body["reviewsPerSubmission"] = 1
	round3 := str(roundOf(b.saveRound(w, body)), "id")
	res = b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round3+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{}}).Obj()
	for _, s := range objects(res["shortfalls"]) {
		require.Equal(t, "no_reviewers", s["reason"])
	}
	b.addReviewer(w, round3, "capped@example.test", 1)
	res = b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round3+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{}}).Obj()
	require.Len(t, res["planned"], 1)
	for _, s := range objects(res["shortfalls"]) {
		require.Equal(t, "caps_exhausted", s["reason"])
	}

	r := b.do(http.MethodPost, url, b.acme, map[string]any{"trackIds": []any{"trk_0000000000000000000000000"}})
	b.requireError(r, 400, "invalid_input")
	b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"dryRun": true}), 400, "invalid_body")
}

func countTier(planned []map[string]any, tier string) int {
	n := 0
	for _, p := range planned {
		if p["tier"] == tier {
			n++
		}
	}
	return n
}
