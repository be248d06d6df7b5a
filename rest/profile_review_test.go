package rest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/submission"
)

const (
	myProfileDoc = `query($c: ID!) { myProfile(contactId: $c) { contactId firstName bio salutation websiteUrl
	  profileReviewStatus approvedProfile reviewed } }`
	updateProfileDoc = `mutation($c: ID!, $in: MyProfileInput!) { updateMyProfile(contactId: $c, input: $in) {
	  firstName bio salutation websiteUrl tshirtSize profileReviewStatus approvedProfile reviewed } }`
	reviewProfileDoc = `mutation($e: ID!, $c: ID!) { %s(eventId: $e, contactId: $c) { id bio profileReviewStatus approvedProfile } }`
	updateContentDoc = `mutation($s: ID!, $in: MySessionContentInput!) { updateMySessionContent(sessionId: $s, input: $in) {
	  title description contentReviewStatus approvedSnapshot editable closedReason reviewed } }`
	reviewContentDoc = `mutation($e: ID!, $s: ID!) { %s(eventId: $e, sessionId: $s) { id title } }`
)

func data(t *testing.T, r gqlResponse, field string) map[string]any {
	t.Helper()
	require.Empty(t, r.Errors, r.Raw)
	return r.Data[field].(map[string]any)
}

// TestProfileReview: a speaker with an accepted session changes a field the public sees and it
// waits for approval, keeping the last approved values; other fields save directly; organizers
// approve or reject; nothing is pending twice; another speaker and an API key reach nothing.
func TestProfileReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ev, ada := f.ids["eventId"], f.ids["contactId"]
	base := "/api/v1/events/" + ev
	graceID := str(b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, speakerBody("grace@example.test")).Obj(), "id")
	me := b.signIn("ada@example.test")
	grace := b.signIn("grace@example.test")
	update := func(cookie, contact string, in map[string]any) gqlResponse {
		return b.gqlAs(cookie, updateProfileDoc, map[string]any{"c": contact, "in": in})
	}
	review := func(op, contact string) gqlResponse {
		return b.gql(b.acme, strings.Replace(reviewProfileDoc, "%s", op, 1), map[string]any{"e": ev, "c": contact})
	}

	p := data(t, b.gqlAs(me, myProfileDoc, map[string]any{"c": ada}), "myProfile")
	require.Equal(t, true, p["reviewed"], "Ada speaks in an accepted session")
	require.Equal(t, "approved", p["profileReviewStatus"])

	// Fields the public does not see save directly.
	p = data(t, update(me, ada, map[string]any{"salutation": "Dr", "tshirtSize": "M"}), "updateMyProfile")
	require.Equal(t, "approved", p["profileReviewStatus"])
	require.Equal(t, "Dr", p["salutation"])
	require.Equal(t, "Ada", p["approvedProfile"].(map[string]any)["firstName"], "recorded when her session was created")
	require.NotContains(t, p["approvedProfile"], "salutation", "not a public field")

	// A gated field is written, and waits; approvedProfile keeps the values before it.
	p = data(t, update(me, ada, map[string]any{"bio": "Wrote the first program.", "websiteUrl": "https://ada.example"}), "updateMyProfile")
	require.Equal(t, "pending_review", p["profileReviewStatus"])
	require.Equal(t, "Wrote the first program.", p["bio"])
	approved := p["approvedProfile"].(map[string]any)
	require.Nil(t, approved["bio"])
	require.Equal(t, "Ada", approved["firstName"])

	// Another speaker's contact is one that does not exist; an API key is nobody's profile;
	// speakers cannot approve.
	require.Equal(t, []string{"not_found"}, update(grace, ada, map[string]any{"bio": "x"}).Codes())
	require.Equal(t, []string{"not_found"}, b.gqlAs(grace, myProfileDoc, map[string]any{"c": ada}).Codes())
	require.Equal(t, []string{"forbidden"}, b.gql(b.acme, updateProfileDoc, map[string]any{"c": ada, "in": map[string]any{"bio": "x"}}).Codes())
	require.Equal(t, []string{"forbidden"}, b.gqlAs(me, strings.Replace(reviewProfileDoc, "%s", "approveSpeakerProfile", 1),
		map[string]any{"e": ev, "c": ada}).Codes())
	require.Equal(t, []string{"forbidden"}, b.gql(b.globex, strings.Replace(reviewProfileDoc, "%s", "approveSpeakerProfile", 1),
		map[string]any{"e": ev, "c": ada}).Codes(), "another organization's event")
	// Grace has no accepted session: her bio saves directly.
	g := data(t, update(grace, graceID, map[string]any{"bio": "Compilers."}), "updateMyProfile")
	require.Equal(t, "approved", g["profileReviewStatus"])
	require.Equal(t, false, g["reviewed"])

	// Approve: approvedProfile takes the live values. Approving again is stale.
	c := data(t, review("approveSpeakerProfile", ada), "approveSpeakerProfile")
	require.Equal(t, "approved", c["profileReviewStatus"])
	require.Equal(t, "Wrote the first program.", c["approvedProfile"].(map[string]any)["bio"])
	require.Equal(t, []string{"conflict"}, review("approveSpeakerProfile", ada).Codes())
	require.Equal(t, []string{"conflict"}, review("rejectSpeakerProfile", ada).Codes())

	// Reject: the live row goes back to the approved values.
	data(t, update(me, ada, map[string]any{"bio": "Something the organizers refuse."}), "updateMyProfile")
	c = data(t, review("rejectSpeakerProfile", ada), "rejectSpeakerProfile")
	require.Equal(t, "rejected", c["profileReviewStatus"])
	require.Equal(t, "Wrote the first program.", c["bio"])
	p = data(t, b.gqlAs(me, myProfileDoc, map[string]any{"c": ada}), "myProfile")
	require.Equal(t, "Wrote the first program.", p["bio"])
	require.Equal(t, "https://ada.example", p["websiteUrl"])

	// Bad values are refused with invalid_input and change nothing.
	for field, v := range map[string]any{"firstName": "  ", "websiteUrl": "javascript:alert(1)", "linkedinUrl": "ftp://x",
		"bio": strings.Repeat("b", 5001), "tshirtSize": "XXXL", "dietaryRequirements": "meat", "pronouns": "a\x00b",
		"gender": "two\nlines"} {
		r := update(me, ada, map[string]any{field: v})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), "%s: %s", field, r.Raw)
	}
	// Every hostile value on every field: a success or invalid_input, never anything else.
	fields := []string{"firstName", "lastName", "salutation", "honorific", "pronouns", "gender", "bio", "linkedinUrl",
		"twitterUrl", "facebookUrl", "websiteUrl", "dietaryRequirements", "tshirtSize"}
	for _, field := range fields {
		for _, raw := range hostileValues {
			r := b.gqlVars(me, `mutation($c: ID!, $in: MyProfileInput!) { updateMyProfile(contactId: $c, input: $in) { profileReviewStatus } }`,
				`{"c":"`+ada+`","in":{"`+field+`":`+raw+`}}`)
			for _, code := range r.Codes() {
				require.Contains(t, []string{"invalid_input", "invalid_body", "graphql_validation_failed", "invalid_json", "graphql_parse_failed"},
					code, "%s = %s: %s", field, raw, r.Raw)
			}
		}
	}
}

// TestSessionContentReview: a speaker edits a proposal's content while its form is open (applied
// as approved), an accepted session's edit waits for the organizers, reject puts the approved
// content back, a closed form and a session from no form refuse, another speaker reaches nothing.
func TestSessionContentReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	sam := b.formSignIn("sam@example.test", fx.form)
	r := b.gqlAs(sam, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Old title",
		"description": "Old", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track}, "language": "en",
		"answers": map[string]any{"audience": "Everyone"}, "firstName": "Sam", "lastName": "Speaker"},
		"submit": true})
	require.Empty(t, r.Errors, r.Raw)
	id := str(r.Data["saveProposal"].(map[string]any), "id")
	edit := func(cookie, title string) gqlResponse {
		return b.gqlAs(cookie, updateContentDoc, map[string]any{"s": id, "in": map[string]any{"title": title, "description": "New"}})
	}

	c := data(t, edit(sam, "Pending title"), "updateMySessionContent")
	require.Equal(t, "approved", c["contentReviewStatus"], "a proposal's edit is applied as approved")
	require.Equal(t, "Pending title", c["approvedSnapshot"].(map[string]any)["title"])

	other := b.formSignIn("eve@example.test", fx.form)
	require.Equal(t, []string{"not_found"}, edit(other, "Hijacked").Codes())
	require.Equal(t, []string{"invalid_input"}, edit(sam, "  ").Codes())

	// Accepted: the edit waits, approvedSnapshot unchanged.
	require.NoError(t, b.db.Ent.Submission.UpdateOneID(id).SetStatus(submission.StatusAccepted).Exec(b.sys()))
	c = data(t, edit(sam, "Accepted edit"), "updateMySessionContent")
	require.Equal(t, "pending_review", c["contentReviewStatus"])
	require.Equal(t, "Pending title", c["approvedSnapshot"].(map[string]any)["title"])
	review := func(op string) gqlResponse {
		return b.gql(b.acme, strings.Replace(reviewContentDoc, "%s", op, 1), map[string]any{"e": fx.event, "s": id})
	}
	require.Equal(t, []string{"forbidden"}, b.gqlAs(sam, strings.Replace(reviewContentDoc, "%s", "approveSessionContent", 1),
		map[string]any{"e": fx.event, "s": id}).Codes())
	require.Equal(t, []string{"forbidden"}, b.gql(b.globex, strings.Replace(reviewContentDoc, "%s", "approveSessionContent", 1),
		map[string]any{"e": fx.event, "s": id}).Codes())
	require.Equal(t, "Accepted edit", data(t, review("approveSessionContent"), "approveSessionContent")["title"])
	require.Equal(t, []string{"conflict"}, review("approveSessionContent").Codes(), "nothing pending any more")
	s, err := b.db.Ent.Submission.Get(b.sys(), id)
	require.NoError(t, err)
	require.Equal(t, "Accepted edit", s.ApprovedSnapshot["title"])

	data(t, edit(sam, "Refused edit"), "updateMySessionContent")
	require.Equal(t, "Accepted edit", data(t, review("rejectSessionContent"), "rejectSessionContent")["title"])
	s, err = b.db.Ent.Submission.Get(b.sys(), id)
	require.NoError(t, err)
	require.Equal(t, submission.ContentReviewStatusRejected, s.ContentReviewStatus)

	// The page shows the form, keeps a refused title, and says why a closed form refuses.
	page := b.pageAs(sam, http.MethodGet, "/portal/sessions/"+id+"/content", nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), "Submit changes for approval")
	page = b.pageAs(sam, http.MethodPost, "/portal/sessions/"+id+"/content", url.Values{"title": {"x\x01y"}, "description": {"Kept text"}})
	require.Equal(t, http.StatusBadRequest, page.Code)
	require.Contains(t, page.Body.String(), `aria-describedby="title-error"`)
	require.Contains(t, page.Body.String(), "Kept text")
	page = b.pageAs(sam, http.MethodPost, "/portal/sessions/"+id+"/content", url.Values{"title": {"From the page"}, "description": {"d"}})
	require.Equal(t, http.StatusSeeOther, page.Code)
	require.Contains(t, page.Header().Get("Location"), "done=pending")

	// Every hostile value on both fields: a success or a refusal of the input, never anything else.
	for _, field := range []string{"title", "description"} {
		for _, raw := range hostileValues {
			in := `{"title":"T","description":"D"}`
			in = strings.Replace(in, `"`+field+`":"`+map[string]string{"title": "T", "description": "D"}[field]+`"`, `"`+field+`":`+raw, 1)
			r := b.gqlVars(sam, `mutation($s: ID!, $in: MySessionContentInput!) { updateMySessionContent(sessionId: $s, input: $in) { title } }`,
				`{"s":"`+id+`","in":`+in+`}`)
			for _, code := range r.Codes() {
				require.Contains(t, []string{"invalid_input", "invalid_body", "graphql_validation_failed", "invalid_json", "graphql_parse_failed"},
					code, "%s = %s: %s", field, raw, r.Raw)
			}
		}
	}

	// A closed form leaves an accepted session's content open to review (TestAcceptedContentLock
	// locks it); a proposal not accepted closes with its form.
	require.NoError(t, b.db.Ent.Form.UpdateOneID(fx.form).SetStatus(form.StatusClosed).Exec(b.sys()))
	require.Equal(t, "pending_review", data(t, edit(sam, "After the close"), "updateMySessionContent")["contentReviewStatus"])
	require.NoError(t, b.db.Ent.Submission.UpdateOneID(id).SetStatus(submission.StatusPending).Exec(b.sys()))
	require.Equal(t, []string{"form_closed"}, edit(sam, "Too late").Codes())
	page = b.pageAs(sam, http.MethodGet, "/portal/sessions/"+id+"/content", nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), "This submission form is closed")
	require.NotContains(t, page.Body.String(), `<form class="stack" method="post" action="/portal/sessions/`)
}

// TestProfilePages: the profile form keeps what was typed when refused, points the field at its
// message, and says when a change went for approval.
func TestProfilePages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ada := f.ids["contactId"]
	me := b.signIn("ada@example.test")

	rec := b.pageAs("", http.MethodGet, "/portal/profile", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	page := b.pageAs(me, http.MethodGet, "/portal/profile", nil)
	require.Equal(t, http.StatusOK, page.Code)
	body := page.Body.String()
	for _, want := range []string{`for="firstName"`, `for="bio"`, `for="websiteUrl"`, `for="headshot"`, `for="tshirtSize"`, "Approved"} {
		require.Contains(t, body, want)
	}
	form := url.Values{"contact": {ada}, "firstName": {"Ada"}, "lastName": {"Lovelace"}, "bio": {"Typed bio"},
		"websiteUrl": {"javascript:alert(1)"}, "dietaryRequirements": {"vegan"}, "tshirtSize": {""}}
	rec = b.pageAs(me, http.MethodPost, "/portal/profile", form)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	body = rec.Body.String()
	require.Contains(t, body, `aria-describedby="websiteUrl-error"`)
	require.Contains(t, body, "Typed bio")
	require.Contains(t, body, `value="javascript:alert(1)"`)
	p := data(t, b.gqlAs(me, myProfileDoc, map[string]any{"c": ada}), "myProfile")
	require.Nil(t, p["bio"], "nothing stored")

	form.Set("websiteUrl", "https://ada.example")
	rec = b.pageAs(me, http.MethodPost, "/portal/profile", form)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	page = b.pageAs(me, http.MethodGet, rec.Header().Get("Location"), nil)
	require.Contains(t, page.Body.String(), "sent for organizer approval")
	require.Contains(t, page.Body.String(), "Waiting for approval")

	// Another speaker's contact id in the form reaches nothing.
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+f.ids["eventId"]+"/speakers", b.acme, speakerBody("grace@example.test"))
	other := b.signIn("grace@example.test")
	rec = b.pageAs(other, http.MethodPost, "/portal/profile", form)
	require.Equal(t, http.StatusNotFound, rec.Code)
}

// TestProfileHeadshotPage: a headshot uploaded from the profile page goes through the file store
// (images only) and to review like the other public fields.
func TestProfileHeadshotPage(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 1<<20)
	me := w.signIn("ada@example.test")
	post := func(name string, content []byte) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		part, err := mw.CreateFormFile("headshot", name)
		require.NoError(t, err)
		_, _ = part.Write(content)
		require.NoError(t, mw.Close())
		req := httptest.NewRequest(http.MethodPost, "/portal/profile/headshot?contact="+w.contact, &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: me})
		return w.sendRaw(req)
	}
	rec := post("notes.pdf", pdf(500))
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `aria-describedby="headshot-hint headshot-error"`)
	ct, err := w.db.Ent.Contact.Get(w.sys(), w.contact)
	require.NoError(t, err)
	require.Nil(t, ct.HeadshotKey, "nothing stored")

	rec = post("me.png", png)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Contains(t, rec.Header().Get("Location"), "done=pending", "Ada speaks in an accepted session")
	ct, err = w.db.Ent.Contact.Get(w.sys(), w.contact)
	require.NoError(t, err)
	require.NotNil(t, ct.HeadshotKey)
	require.Equal(t, "pending_review", ct.ProfileReviewStatus.String())
	c := data(t, w.gql(w.acme, strings.Replace(reviewProfileDoc, "%s", "approveSpeakerProfile", 1),
		map[string]any{"e": w.event, "c": w.contact}), "approveSpeakerProfile")
	require.Equal(t, *ct.HeadshotKey, c["approvedProfile"].(map[string]any)["headshotKey"])
	page := w.pageAs(me, http.MethodGet, "/portal/profile", nil)
	require.Contains(t, page.Body.String(), `alt="Your current headshot"`)
}
