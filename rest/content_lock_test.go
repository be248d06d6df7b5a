package rest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	contentLockDoc = `mutation($e: ID!) { %s(eventId: $e) { id speakerContentLocked } }`
	myContentDoc   = `query($s: ID!) { mySessionContent(sessionId: $s) { title editable closedReason reviewed contentReviewStatus } }`
)

// TestAcceptedContentLock: an accepted speaker edits their session's content after the call for
// proposals has closed, the edit waiting for the organizers while the approved version stays;
// once the organizers lock the event's content, the mutation and the page refuse with
// content_locked and the portal offers no edit link; unlocking opens it again. A proposal that
// was not accepted stays closed with its form, lock or not; only the event's admins lock.
func TestAcceptedContentLock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	base := "/api/v1/events/" + fx.event
	propose := func(cookie, title, first string) string {
		t.Helper()
		r := b.gqlAs(cookie, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": title,
			"description": "Accepted abstract", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track},
			"language": "en", "answers": map[string]any{"audience": "Everyone"}, "firstName": first, "lastName": "Speaker"},
			"submit": true})
		require.Empty(t, r.Errors, r.Raw)
		return str(r.Data["saveProposal"].(map[string]any), "id")
	}
	sam := b.formSignIn("sam@example.test", fx.form)
	kim := b.formSignIn("kim@example.test", fx.form)
	accepted := propose(sam, "Accepted title", "Sam")
	pending := propose(kim, "Pending title", "Kim")
	b.must(http.StatusOK, http.MethodPost, base+"/submissions/decide", b.acme, map[string]any{
		"submissionIds": []any{accepted}, "decision": "accept", "feedback": ""})
	b.gqlOK(b.acme, strings.Replace(formStatusDoc, "%s", "closeForm", 1), map[string]any{"e": fx.event, "f": fx.form})

	edit := func(cookie, id, title string) gqlResponse {
		return b.gqlAs(cookie, updateContentDoc, map[string]any{"s": id, "in": map[string]any{"title": title, "description": "Fixed abstract"}})
	}
	lock := func(key, op string) gqlResponse {
		return b.gql(key, strings.Replace(contentLockDoc, "%s", op, 1), map[string]any{"e": fx.event})
	}
	editLinks := func() int {
		t.Helper()
		n := 0
		for _, path := range []string{"/portal/sessions", "/portal/submissions", "/cfp/" + fx.form + "/proposals/" + accepted} {
			page := b.pageAs(sam, http.MethodGet, path, nil)
			require.Equal(t, http.StatusOK, page.Code)
			n += strings.Count(page.Body.String(), "/portal/sessions/"+accepted+"/content")
		}
		return n
	}

	// Unlocked (the default): the edit goes to review.
	{
		c := data(t, edit(sam, accepted, "Fixed title"), "updateMySessionContent")
		require.Equal(t, "pending_review", c["contentReviewStatus"])
		require.Equal(t, true, c["editable"])
		require.Equal(t, "Accepted title", c["approvedSnapshot"].(map[string]any)["title"], "the public keeps the accepted version")
		ev := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { speakerContentLocked } }`, map[string]any{"e": fx.event})
		require.Equal(t, false, ev["event"].(map[string]any)["speakerContentLocked"], "unlocked by default")
		require.Equal(t, 3, editLinks(), "the portal's lists and the proposal's page offer the edit")

		require.Equal(t, []string{"form_closed"}, edit(kim, pending, "Too late").Codes(), "a proposal not accepted closes with its form")
	}

	// Only the event's admins lock.
	{
		require.Equal(t, []string{"forbidden"}, b.gqlAs(sam, strings.Replace(contentLockDoc, "%s", "lockSpeakerContent", 1),
			map[string]any{"e": fx.event}).Codes())
		require.Equal(t, []string{"forbidden"}, lock(b.globex, "lockSpeakerContent").Codes())
		r := b.gql(b.acme, strings.Replace(contentLockDoc, "%s", "lockSpeakerContent", 1), map[string]any{"e": "evt_nope"})
		require.Equal(t, []string{"forbidden"}, r.Codes())
	}

	// Locked: the mutation, the page and the portal refuse.
	{
		r := lock(b.acme, "lockSpeakerContent")
		require.Equal(t, true, data(t, r, "lockSpeakerContent")["speakerContentLocked"])
		require.Equal(t, true, data(t, lock(b.acme, "lockSpeakerContent"), "lockSpeakerContent")["speakerContentLocked"],
			"locking twice is no error")

		r = edit(sam, accepted, "After the lock")
		require.Equal(t, []string{"content_locked"}, r.Codes(), r.Raw)
		require.Contains(t, r.Errors[0].Message, "locked")
		c := data(t, b.gqlAs(sam, myContentDoc, map[string]any{"s": accepted}), "mySessionContent")
		require.Equal(t, false, c["editable"])
		require.Equal(t, "Fixed title", c["title"], "nothing changed")
		require.Contains(t, c["closedReason"], "locked")
		require.Equal(t, []string{"form_closed"}, edit(kim, pending, "Too late").Codes())

		require.Zero(t, editLinks(), "no edit link while locked")
		page := b.pageAs(sam, http.MethodGet, "/cfp/"+fx.form+"/proposals/"+accepted, nil)
		require.Contains(t, page.Body.String(), "locked the content", "the proposal's page says why")
		page = b.pageAs(sam, http.MethodGet, "/portal/sessions", nil)
		require.Contains(t, page.Body.String(), "locked the content", "and so does the portal's")
		page = b.pageAs(sam, http.MethodGet, "/portal/sessions/"+accepted+"/content", nil)
		require.Equal(t, http.StatusOK, page.Code)
		require.Contains(t, page.Body.String(), "locked")
		require.NotContains(t, page.Body.String(), `<form class="stack" method="post"`)
		page = b.pageAs(sam, http.MethodPost, "/portal/sessions/"+accepted+"/content", url.Values{"title": {"Sneaked"}, "description": {"d"}})
		require.Equal(t, http.StatusConflict, page.Code)
		require.Contains(t, page.Body.String(), "locked")
		require.NotContains(t, page.Body.String(), "Sneaked", "the page shows the stored content, not a title that was refused")
	}

	// Unlocked again.
	{
		require.Equal(t, false, data(t, lock(b.acme, "unlockSpeakerContent"), "unlockSpeakerContent")["speakerContentLocked"])
		require.Equal(t, 3, editLinks())
		c := data(t, edit(sam, accepted, "Fixed again"), "updateMySessionContent")
		require.Equal(t, "pending_review", c["contentReviewStatus"])
	}
}
