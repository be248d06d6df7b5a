package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// doVersion sends a JSON request with the Podium-Version header set to version.
func (b *testBundle) doVersion(version, method, path, key string, body any) response {
	b.t.Helper()
	var buf bytes.Buffer
	if body != nil {
		require.NoError(b.t, json.NewEncoder(&buf).Encode(body))
	}
	req := httptest.NewRequest(method, path, &buf)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(rest.VersionHeader, version)
	return b.send(req)
}

// TestVersionHeader: a request without Podium-Version gets the default version, named in the
// answer; one naming a version gets it; an unknown one is refused with 400 before anything runs.
func TestVersionHeader(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	r := b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil)
	require.Equal(t, rest.DefaultVersion, r.Header.Get(rest.VersionHeader))
	r = b.doVersion(rest.VersionCurrent, http.MethodGet, w.base, b.acme, nil)
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, rest.VersionCurrent, r.Header.Get(rest.VersionHeader))

	before := b.count(`SELECT count(*) FROM events`)
	for _, v := range []string{"2026-08-20", "latest", "2026-08-21x"} {
		r = b.doVersion(v, http.MethodPost, "/api/v1/events", b.acme, map[string]any{"name": "Nope", "slug": "nope"})
		b.requireError(r, http.StatusBadRequest, rest.CodeUnknownVersion)
		require.Contains(t, r.ErrMessage(), "2026-08-12, 2026-08-21")
	}
	require.Equal(t, before, b.count(`SELECT count(*) FROM events`))
	// The key comes first: no key is 401 whatever the version.
	req := httptest.NewRequest(http.MethodGet, w.base, nil)
	req.Header.Set(rest.VersionHeader, "latest")
	b.requireError(b.send(req), http.StatusUnauthorized, "missing_api_key")
}

// TestVersionRoutes: an operation exists in the versions that have it; asked for in another, it
// is 404 unknown_endpoint naming the version that has it, and writes nothing.
func TestVersionRoutes(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	p := b.propose(w, "Generics", w.ada)
	b.decide(w, "accept", p["id"])

	r := b.do(http.MethodPost, w.base+"/submissions/inform", b.acme, map[string]any{"submissionIds": []any{p["id"]}})
	b.requireError(r, http.StatusNotFound, "unknown_endpoint")
	require.Contains(t, r.ErrMessage(), "Podium-Version: 2026-08-21")
	require.Zero(t, b.decisionMails(str(p, "id")))

	r = b.doVersion(rest.VersionCurrent, http.MethodPatch, w.base+"/speakers/"+w.ada+"/workflow", b.acme,
		map[string]any{"status": "confirmed"})
	b.requireError(r, http.StatusNotFound, "unknown_endpoint")
	require.Contains(t, r.ErrMessage(), "Podium-Version: 2026-08-12")
	// The default version still has it.
	b.must(http.StatusOK, http.MethodPatch, w.base+"/speakers/"+w.ada+"/workflow", b.acme,
		map[string]any{"status": "invited"})
}

// TestCurrentVersionDecideThenInform: in 2026-08-21, deciding emails no one and answers the
// original's shape; feedback is refused there; inform emails each speaker once and answers
// {queued}; informing again is refused and sends nothing. The default version still decides and
// emails at once.
func TestCurrentVersionDecideThenInform(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	p1 := b.propose(w, "Generics", w.ada, w.grace)
	p2 := b.propose(w, "Channels", w.alan)
	decide := func(body map[string]any) response {
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/decide", b.acme, body)
	}

	for name, body := range map[string]map[string]any{
		"Feedback": {"submissionIds": []any{p1["id"]}, "decision": "accept", "feedback": "Well done"},
		"Inform":   {"submissionIds": []any{p1["id"]}, "decision": "accept", "inform": true},
	} {
		r := decide(body)
		b.requireError(r, http.StatusBadRequest, "invalid_body")
		require.Contains(t, r.ErrMessage(), "is not part of API version 2026-08-21", name)
	}
	require.Equal(t, 2, b.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND status = 'pending'`,
		[]string{str(p1, "id"), str(p2, "id")}))

	r := decide(map[string]any{"submissionIds": []any{p1["id"], p2["id"]}, "decision": "accept"})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	requireOriginalShape(t, "decideSubmissions", r)
	require.NotContains(t, r.Obj(), "createdEmails")
	for _, s := range r.Obj()["submissions"].([]any) {
		require.Nil(t, s.(map[string]any)["notifiedAt"])
	}
	// An uninformed decision may change.
	r = decide(map[string]any{"submissionIds": []any{p2["id"]}, "decision": "decline", "confirmRedecide": true})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	time.Sleep(300 * time.Millisecond) // the workers poll fast: anything queued would be out by now
	require.Empty(t, b.sink.Messages())
	require.Zero(t, b.decisionMails(str(p1, "id")))

	inform := func(body map[string]any) response {
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/inform", b.acme, body)
	}
	r = inform(map[string]any{"submissionIds": []any{p1["id"], p2["id"]}, "subject": "Your talk", "replyTo": nil})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	requireOriginalShape(t, "informSubmissions", r)
	require.Equal(t, json.Number("3"), r.Obj()["queued"])
	for _, addr := range []string{"ada@example.test", "grace@example.test", "alan@example.test"} {
		require.Eventually(t, func() bool { return len(mailsWithSubject(b.sink, addr, "Your talk")) == 1 },
			15*time.Second, 20*time.Millisecond, addr)
	}
	r = inform(map[string]any{"submissionIds": []any{p1["id"]}})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, 2, b.decisionMails(str(p1, "id")))
	require.Equal(t, 1, b.decisionMails(str(p2, "id")))

	// Another organization's key is refused as for any event of theirs.
	r = b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/inform", b.globex,
		map[string]any{"submissionIds": []any{p1["id"]}})
	b.requireError(r, http.StatusForbidden, "forbidden")

	// The default version decides and emails at once, with feedback required.
	p3 := b.propose(w, "Maps", w.alan)
	r = b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{"submissionIds": []any{p3["id"]}, "decision": "accept"})
	b.requireError(r, http.StatusBadRequest, "invalid_body")
	r = b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme,
		map[string]any{"submissionIds": []any{p3["id"]}, "decision": "accept", "feedback": "Yes"})
	require.Equal(t, json.Number("1"), r.Obj()["createdEmails"])
	require.Equal(t, 1, b.decisionMails(str(p3, "id")))
}

// TestCurrentVersionReviewerOnly: from 2026-08-21 an organization key cannot answer or recuse a
// reviewer's assignment (only the reviewer acts on it), and nothing changes; 2026-08-12 lets it.
func TestCurrentVersionReviewerOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	s1 := b.proposeIn(w, "One", "d", nil, w.ada)
	round := str(roundOf(b.saveRound(w, roundBody("Round 1"))), "id")
	r1 := b.addReviewer(w, round, "r1@example.test", nil)
	b.assign(w, round, r1, s1)
	a1 := assignmentOf(t, roundIn(t, b.workspace(w), round), r1, s1)
	path := w.base + "/review-assignments/" + str(a1, "id")

	r := b.doVersion(rest.VersionCurrent, http.MethodPost, path+"/recuse", b.acme, map[string]any{"reason": "Conflict"})
	b.requireError(r, http.StatusForbidden, "forbidden")
	require.Contains(t, r.ErrMessage(), "Only the assigned reviewer")
	r = b.doVersion(rest.VersionCurrent, http.MethodPost, path+"/answers", b.acme, map[string]any{"answers": []any{}})
	b.requireError(r, http.StatusForbidden, "forbidden")
	require.Equal(t, 1, b.count(`SELECT count(*) FROM review_assignments WHERE id = $1 AND status = 'pending'`, a1["id"]))

	b.must(http.StatusOK, http.MethodPost, path+"/recuse", b.acme, map[string]any{"reason": "Conflict"})
	require.Equal(t, 1, b.count(`SELECT count(*) FROM review_assignments WHERE id = $1 AND status = 'recused'`, a1["id"]))
}

// TestKeyPinnedToVersion: a key made with apiVersion gets that version when its request names
// none, the header still wins, rotation keeps the pin, and an unknown version is refused on
// creation with nothing written.
func TestKeyPinnedToVersion(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	keys := b.count(`SELECT count(*) FROM api_keys`)
	r := b.do(http.MethodPost, "/api/v1/api-keys", b.acme, map[string]any{"name": "Old", "scopes": []any{"read"},
		"apiVersion": "2026-08-20"})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Contains(t, r.ErrMessage(), "2026-08-12, 2026-08-21")
	require.Equal(t, keys, b.count(`SELECT count(*) FROM api_keys`))

	made := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", b.acme, map[string]any{"name": "Current",
		"scopes": []any{"read", "write", "send_mail"}, "apiVersion": rest.VersionCurrent}).Obj()
	require.Equal(t, rest.VersionCurrent, made["apiKey"].(map[string]any)["apiVersion"])
	pinned := str(made, "secret")

	p := b.propose(w, "Generics", w.ada)
	b.decide(w, "accept", p["id"])
	res := b.must(http.StatusOK, http.MethodGet, w.base, pinned, nil)
	require.Equal(t, rest.VersionCurrent, res.Header.Get(rest.VersionHeader))
	// Deciding without feedback and informing: the current version's routes, with no header.
	r = b.do(http.MethodPost, w.base+"/submissions/inform", pinned, map[string]any{"submissionIds": []any{p["id"]}})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, json.Number("1"), r.Obj()["queued"])
	// The header wins over the pin.
	r = b.doVersion(rest.VersionInterface, http.MethodPost, w.base+"/submissions/inform", pinned,
		map[string]any{"submissionIds": []any{p["id"]}})
	b.requireError(r, http.StatusNotFound, "unknown_endpoint")
	// A key without a pin gets the default.
	require.Equal(t, rest.DefaultVersion, b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Header.Get(rest.VersionHeader))

	rotated := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys/"+str(made["apiKey"].(map[string]any), "id")+"/rotate",
		b.acme, nil).Obj()
	require.Equal(t, rest.VersionCurrent, rotated["apiKey"].(map[string]any)["apiVersion"])
	require.Equal(t, rest.VersionCurrent, b.must(http.StatusOK, http.MethodGet, w.base, str(rotated, "secret"), nil).Header.Get(rest.VersionHeader))
}
