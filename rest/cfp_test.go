package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
)

// cfpFixture is an event with a track, a format, a level and a form with questions.
type cfpFixture struct {
	event, track, format, level, form string
}

const createFormDoc = `mutation($e: ID!, $in: CfpFormInput!) { createForm(eventId: $e, input: $in) {
  id title status acceptingProposals effectiveSubmissionLimit tracks { id name } formats { id } levels { id }
  questions { key label kind required options } } }`

const saveProposalDoc = `mutation($f: ID!, $id: ID, $in: ProposalInput!, $submit: Boolean) {
  saveProposal(formId: $f, id: $id, input: $in, submit: $submit) {
    id code status submittedAt mine editable answers trackIds speakers { name email submitter } } }`

func (b *testBundle) cfpFixture(limit any) cfpFixture {
	b.t.Helper()
	ev := str(b.createEvent(b.acme, "CFP Conf"), "id")
	fx := cfpFixture{event: ev,
		track:  str(b.saveItem(b.acme, ev, map[string]any{"kind": "track", "name": "Cloud"}), "id"),
		format: str(b.saveItem(b.acme, ev, map[string]any{"kind": "format", "name": "Talk"}), "id"),
		level:  str(b.saveItem(b.acme, ev, map[string]any{"kind": "level", "name": "Beginner"}), "id"),
	}
	f := b.gqlOK(b.acme, createFormDoc, map[string]any{"e": ev, "in": map[string]any{
		"title": "Speak at CFP Conf", "submissionLimit": limit,
		"questions": []any{
			map[string]any{"key": "audience", "label": "Who is it for?", "kind": "text", "required": true},
			map[string]any{"key": "length", "label": "How long?", "kind": "choice", "options": []any{"25 minutes", "45 minutes"}},
			map[string]any{"key": "notes", "label": "Notes for the organizers", "kind": "long_text"},
		}}})["createForm"].(map[string]any)
	fx.form = str(f, "id")
	return fx
}

// formSignIn asks for a link from a form's page (any address may) and follows it; it returns the
// session cookie.
func (b *testBundle) formSignIn(addr, formID string) string {
	b.t.Helper()
	n, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient(addr), emaillog.TypeEQ(emaillog.TypeMagicLink)).Count(b.sys())
	require.NoError(b.t, err)
	form := url.Values{"email": {addr}, "next": {"/cfp/" + formID}, "form": {formID}}
	req := httptest.NewRequest(http.MethodPost, "/auth/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	require.Equal(b.t, http.StatusAccepted, b.sendRaw(req).Code)
	rec := b.follow(b.linkFor(addr, n+1), "")
	require.Equal(b.t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(b.t, "/cfp/"+formID, rec.Header().Get("Location"))
	return cookieOf(b.t, rec).Value
}

// gqlAs posts a GraphQL document with variables and a session cookie.
func (b *testBundle) gqlAs(cookie, query string, vars map[string]any) gqlResponse {
	b.t.Helper()
	raw, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(b.t, err)
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	r := b.send(req)
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(b.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	return out
}

func (b *testBundle) proposalsOf(eventID string) int {
	b.t.Helper()
	n, err := b.db.Ent.Submission.Query().Where(submission.EventID(eventID)).Count(b.sys())
	require.NoError(b.t, err)
	return n
}

func TestCFPForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	other := str(b.createEvent(b.acme, "Other"), "id")
	otherTrack := str(b.saveItem(b.acme, other, map[string]any{"kind": "track", "name": "Elsewhere"}), "id")

	t.Run("the form offers every item of the event and falls back to the event's limit", func(t *testing.T) {
		r := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { forms { id effectiveSubmissionLimit submissionLimit acceptingProposals
		  tracks { name } formats { name } levels { name } questions { key kind required options } } } }`, map[string]any{"e": fx.event})
		forms := r["event"].(map[string]any)["forms"].([]any)
		require.Len(t, forms, 1)
		f := forms[0].(map[string]any)
		require.Equal(t, float64(3), f["effectiveSubmissionLimit"])
		require.Nil(t, f["submissionLimit"])
		require.Equal(t, true, f["acceptingProposals"])
		require.Equal(t, []any{map[string]any{"name": "Cloud"}}, f["tracks"])
		require.Len(t, f["questions"], 3)
	})

	bad := map[string]struct {
		in   map[string]any
		code string
	}{
		"empty title":           {map[string]any{"title": "  "}, "invalid_input"},
		"NUL in title":          {map[string]any{"title": "a\x00b"}, "invalid_input"},
		"closes before opens":   {map[string]any{"title": "T", "opensAt": "2027-01-02T00:00:00Z", "closesAt": "2027-01-01T00:00:00Z"}, "invalid_input"},
		"limit 0":               {map[string]any{"title": "T", "submissionLimit": 0}, "invalid_input"},
		"another event's track": {map[string]any{"title": "T", "trackIds": []any{otherTrack}}, "invalid_input"},
		"a made-up format":      {map[string]any{"title": "T", "formatIds": []any{"fmt_nope"}}, "invalid_input"},
		"bad question key":      {map[string]any{"title": "T", "questions": []any{map[string]any{"key": "Bad Key", "label": "Q", "kind": "text"}}}, "invalid_input"},
		"twice the same key": {map[string]any{"title": "T", "questions": []any{map[string]any{"key": "a", "label": "Q", "kind": "text"},
			map[string]any{"key": "a", "label": "R", "kind": "text"}}}, "invalid_input"},
		"choice without options": {map[string]any{"title": "T", "questions": []any{map[string]any{"key": "a", "label": "Q", "kind": "choice"}}}, "invalid_input"},
		"text with options":      {map[string]any{"title": "T", "questions": []any{map[string]any{"key": "a", "label": "Q", "kind": "text", "options": []any{"x"}}}}, "invalid_input"},
	}
	for name, c := range bad {
		t.Run("refuses "+name, func(t *testing.T) {
			r := b.gql(b.acme, createFormDoc, map[string]any{"e": fx.event, "in": c.in})
			require.Equal(t, []string{c.code}, r.Codes(), r.Raw)
		})
	}
	t.Run("another organization cannot touch the form", func(t *testing.T) {
		r := b.gql(b.globex, `mutation($e: ID!, $f: ID!) { deleteForm(eventId: $e, formId: $f) }`, map[string]any{"e": fx.event, "f": fx.form})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
	})
	t.Run("update changes the settings it gives", func(t *testing.T) {
		r := b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) {
		  title submissionLimit effectiveSubmissionLimit tracks { id } questions { key } } }`,
			map[string]any{"e": fx.event, "f": fx.form, "in": map[string]any{"title": "Renamed", "submissionLimit": 2, "trackIds": []any{fx.track}}})
		f := r["updateForm"].(map[string]any)
		require.Equal(t, "Renamed", f["title"])
		require.Equal(t, float64(2), f["effectiveSubmissionLimit"])
		require.Len(t, f["questions"], 3, "questions left out stay")
	})
	t.Run("a form with proposals is not deleted; an empty one is", func(t *testing.T) {
		cookie := b.formSignIn("deleter@example.test", fx.form)
		r := b.gqlAs(cookie, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Keep me", "firstName": "Del"}})
		require.Empty(t, r.Errors, r.Raw)
		del := `mutation($e: ID!, $f: ID!) { deleteForm(eventId: $e, formId: $f) }`
		r = b.gql(b.acme, del, map[string]any{"e": fx.event, "f": fx.form})
		require.Equal(t, []string{"resource_in_use"}, r.Codes(), r.Raw)
		// Below the operation, the database refuses too.
		_, err := b.db.Ent.Form.Delete().Exec(b.scopeOf(fx.event))
		require.Error(t, err)
		n, err := b.db.Ent.Submission.Query().Where(submission.EventID(fx.event), submission.SourceFormIDNotNil()).Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 1, n)

		empty := str(b.gqlOK(b.acme, createFormDoc, map[string]any{"e": fx.event, "in": map[string]any{"title": "Empty"}})["createForm"].(map[string]any), "id")
		require.Equal(t, empty, b.gqlOK(b.acme, del, map[string]any{"e": fx.event, "f": empty})["deleteForm"])
	})
}

func TestCFPProposals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(2)
	ada := b.formSignIn("ada@example.test", fx.form)
	answers := map[string]any{"audience": "Gophers", "length": "25 minutes"}

	var draft string
	t.Run("a new speaker saves a draft and becomes a contact", func(t *testing.T) {
		r := b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{
			"title": "Generics in anger", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track},
			"answers": answers, "firstName": "Ada", "lastName": "Lovelace"}})
		require.Empty(t, r.Errors, r.Raw)
		p := r.Data["saveProposal"].(map[string]any)
		require.Equal(t, "draft", p["status"])
		require.Nil(t, p["submittedAt"])
		require.Equal(t, true, p["mine"])
		require.Equal(t, true, p["editable"])
		draft = str(p, "id")
		ct, err := b.db.Ent.Contact.Query().Where(contact.EventID(fx.event), contact.Email("ada@example.test")).Only(b.sys())
		require.NoError(t, err)
		require.Equal(t, "Ada", ct.FirstName)
		require.Equal(t, "Lovelace", ct.LastName)
	})
	t.Run("submitting needs the required answers", func(t *testing.T) {
		r := b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "id": draft, "submit": true,
			"in": map[string]any{"title": "Generics in anger", "answers": map[string]any{"length": "25 minutes"}}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		require.Contains(t, r.Raw, "Who is it for?")
	})
	t.Run("refused values store nothing", func(t *testing.T) {
		for name, in := range map[string]map[string]any{
			"malformed co-speaker":     {"title": "X", "coSpeakers": []any{map[string]any{"name": "Bob", "email": "bob@@example"}}},
			"co-speaker with a header": {"title": "X", "coSpeakers": []any{map[string]any{"name": "Bob", "email": "b@example.test\r\nBcc: v@example.test"}}},
			"an option not offered":    {"title": "X", "answers": map[string]any{"length": "3 hours"}},
			"an unknown question":      {"title": "X", "answers": map[string]any{"nope": "x"}},
			"another event's track":    {"title": "X", "trackIds": []any{"trk_01doesnotexist0000000000"}},
			"a NUL in the description": {"title": "X", "description": "a\x00b"},
		} {
			before := b.proposalsOf(fx.event)
			r := b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "in": in})
			require.NotEmpty(t, r.Codes(), name)
			require.NotEqual(t, "internal_error", r.Codes()[0], name+": "+r.Raw)
			require.Equal(t, before, b.proposalsOf(fx.event), name)
		}
	})
	t.Run("submit: pending with submittedAt, a confirmation email, the organizer sees it", func(t *testing.T) {
		r := b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "id": draft, "submit": true,
			"in": map[string]any{"title": "Generics in anger", "answers": answers, "trackIds": []any{fx.track},
				"coSpeakers": []any{map[string]any{"name": "Grace Hopper", "email": "Grace@Example.test"}}}})
		require.Empty(t, r.Errors, r.Raw)
		p := r.Data["saveProposal"].(map[string]any)
		require.Equal(t, "pending", p["status"])
		require.NotNil(t, p["submittedAt"])
		require.Len(t, p["speakers"], 1, "a co-speaker is invited, not a speaker yet")
		list := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+fx.event+"/submissions", b.acme, nil).Obj()
		subs := list["submissions"].([]any)
		require.Len(t, subs, 1)
		s := subs[0].(map[string]any)
		require.Equal(t, "pending", s["status"])
		require.NotNil(t, s["submittedAt"])
		require.Equal(t, "cfp", s["source"])
		conf, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("ada@example.test"), emaillog.TypeEQ(emaillog.TypeConfirmation)).Only(b.sys())
		require.NoError(t, err)
		require.Contains(t, conf.Body, "https://podium.example.test/cfp/"+fx.form)
		co, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("grace@example.test")).Only(b.sys())
		require.NoError(t, err)
		require.Equal(t, "cfp_co_speaker", *co.Template)
		require.Contains(t, co.Body, "Ada Lovelace")
	})
	t.Run("the co-speaker signs in, accepts and sees the proposal as a participant", func(t *testing.T) {
		grace := b.formSignIn("grace@example.test", fx.form)
		a := b.gqlAs(grace, answerDoc, map[string]any{"f": fx.form, "id": draft, "accept": true})
		require.Empty(t, a.Errors, a.Raw)
		r := b.gqlAs(grace, `query($f: ID!) { myProposals(formId: $f) { id mine speakers { email submitter } } }`, map[string]any{"f": fx.form})
		require.Empty(t, r.Errors, r.Raw)
		list := r.Data["myProposals"].([]any)
		require.Len(t, list, 1)
		require.Equal(t, false, list[0].(map[string]any)["mine"])
		n, err := b.db.Ent.SubmissionParticipant.Query().Where(submissionparticipant.SubmissionID(draft)).Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 2, n)
	})
	t.Run("a double submit makes one proposal", func(t *testing.T) {
		before := b.proposalsOf(fx.event)
		in := map[string]any{"key": "tab-1", "title": "Twice", "answers": answers}
		done := make(chan gqlResponse, 2)
		for range 2 {
			go func() { done <- b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "in": in, "submit": true}) }()
		}
		r1, r2 := <-done, <-done
		require.Empty(t, r1.Errors, r1.Raw)
		require.Empty(t, r2.Errors, r2.Raw)
		require.Equal(t, before+1, b.proposalsOf(fx.event))
		n, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("ada@example.test"), emaillog.TypeEQ(emaillog.TypeConfirmation)).Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 2, n, "one confirmation per proposal")
	})
	t.Run("over the limit: submission_limit_reached, withdrawn ones count", func(t *testing.T) {
		r := b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Third"}})
		require.Equal(t, []string{"submission_limit_reached"}, r.Codes(), r.Raw)
		w := b.gqlAs(ada, `mutation($f: ID!, $id: ID!) { withdrawProposal(formId: $f, id: $id) { status } }`, map[string]any{"f": fx.form, "id": draft})
		require.Empty(t, w.Errors, w.Raw)
		require.Equal(t, "withdrawn", w.Data["withdrawProposal"].(map[string]any)["status"])
		r = b.gqlAs(ada, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Third"}})
		require.Equal(t, []string{"submission_limit_reached"}, r.Codes(), r.Raw)
	})
	t.Run("someone else's proposal, or one through another event's form, is not found", func(t *testing.T) {
		eve := b.formSignIn("eve@example.test", fx.form)
		r := b.gqlAs(eve, saveProposalDoc, map[string]any{"f": fx.form, "id": draft, "in": map[string]any{"title": "Mine now"}})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		r = b.gqlAs(eve, `mutation($f: ID!, $id: ID!) { withdrawProposal(formId: $f, id: $id) { status } }`, map[string]any{"f": fx.form, "id": draft})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		other := b.cfpFixture(nil)
		r = b.gqlAs(ada, saveProposalDoc, map[string]any{"f": other.form, "id": draft, "in": map[string]any{"title": "Moved"}})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		s, err := b.db.Ent.Submission.Get(b.sys(), draft)
		require.NoError(t, err)
		require.Equal(t, "Generics in anger", s.Title)
	})
	t.Run("API keys have no proposals", func(t *testing.T) {
		r := b.gql(b.acme, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Key"}})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
	})
	t.Run("a closed form refuses new proposals and edits", func(t *testing.T) {
		fx2 := b.cfpFixture(nil)
		bob := b.formSignIn("bob@example.test", fx2.form)
		r := b.gqlAs(bob, saveProposalDoc, map[string]any{"f": fx2.form, "in": map[string]any{"title": "Before close", "firstName": "Bob"}})
		require.Empty(t, r.Errors, r.Raw)
		id := str(r.Data["saveProposal"].(map[string]any), "id")
		past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) { id } }`,
			map[string]any{"e": fx2.event, "f": fx2.form, "in": map[string]any{"title": "Closed", "opensAt": "2020-01-01T00:00:00Z", "closesAt": past}})
		r = b.gqlAs(bob, saveProposalDoc, map[string]any{"f": fx2.form, "id": id, "submit": true, "in": map[string]any{"title": "Stale tab"}})
		require.Equal(t, []string{"form_closed"}, r.Codes(), r.Raw)
		r = b.gqlAs(bob, saveProposalDoc, map[string]any{"f": fx2.form, "in": map[string]any{"title": "New"}})
		require.Equal(t, []string{"form_closed"}, r.Codes(), r.Raw)
		s, err := b.db.Ent.Submission.Get(b.sys(), id)
		require.NoError(t, err)
		require.Equal(t, "Before close", s.Title)
		require.Equal(t, submission.StatusDraft, s.Status)
	})
}

// pageAs sends a page request with a session cookie ("" for none), same-origin.
func (b *testBundle) pageAs(cookie, method, path string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	return b.sendRaw(req)
}

func TestCFPPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(1)
	page := "/cfp/" + fx.form

	t.Run("anyone reads the form and is offered a sign-in link", func(t *testing.T) {
		rec := b.pageAs("", http.MethodGet, page, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), "Speak at CFP Conf")
		require.Contains(t, rec.Body.String(), `name="form" value="`+fx.form+`"`)
		rec = b.pageAs("", http.MethodGet, page+"/new", nil)
		require.Equal(t, http.StatusSeeOther, rec.Code)
		require.Equal(t, "/auth/signin?next="+url.QueryEscape(page+"/new"), rec.Header().Get("Location"))
		require.Equal(t, http.StatusNotFound, b.pageAs("", http.MethodGet, "/cfp/form_nope", nil).Code)
	})

	ada := b.formSignIn("ada@example.test", fx.form)
	valid := func() url.Values {
		return url.Values{"key": {"k1"}, "title": {"Generics"}, "description": {"All about them"}, "format": {fx.format},
			"level": {fx.level}, "track": {fx.track}, "language": {"en"}, "cospeakers": {""},
			"q_audience": {"Gophers"}, "q_length": {"25 minutes"}, "q_notes": {""}, "first_name": {"Ada"}, "last_name": {"L"}}
	}
	t.Run("a refused form keeps what was typed and points at the field", func(t *testing.T) {
		f := valid()
		f.Set("title", "")
		f.Set("description", "Typed <carefully>")
		rec := b.pageAs(ada, http.MethodPost, page+"/proposals", f)
		require.Equal(t, http.StatusBadRequest, rec.Code)
		body := rec.Body.String()
		require.Contains(t, body, "Typed &lt;carefully&gt;")
		require.Contains(t, body, `aria-describedby="title-error"`)
		require.Contains(t, body, `id="title-error"`)
		f = valid()
		f.Set("cospeakers", "Bob <bob@@example>")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals", f)
		require.Equal(t, http.StatusBadRequest, rec.Code)
		require.Contains(t, rec.Body.String(), `id="cospeakers-error"`)
		require.Contains(t, rec.Body.String(), "Bob &lt;bob@@example&gt;")
		require.Equal(t, 0, b.proposalsOf(fx.event))
	})
	t.Run("every field's hostile values: a page, never a 500, nothing wrong stored", func(t *testing.T) {
		fields := []string{"key", "title", "description", "format", "level", "track", "language", "cospeakers",
			"q_audience", "q_length", "q_notes", "first_name", "last_name", "action"}
		for _, field := range fields {
			for _, v := range hostileGo {
				s, ok := v.(string)
				if !ok {
					continue
				}
				f := valid()
				f.Set(field, s)
				rec := b.pageAs(ada, http.MethodPost, page+"/proposals", f)
				require.Less(t, rec.Code, 500, "%s=%q: %s", field, s, rec.Body.String())
				require.Contains(t, []int{http.StatusSeeOther, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}, rec.Code, "%s=%q", field, s)
			}
		}
		subs, err := b.db.Ent.Submission.Query().Where(submission.EventID(fx.event)).All(b.sys())
		require.NoError(t, err)
		require.LessOrEqual(t, len(subs), 1, "the limit of one holds")
		for _, s := range subs {
			require.NotContains(t, s.Title, "\x00")
			require.LessOrEqual(t, len([]rune(s.Title)), 500)
			for k, a := range s.Answers {
				require.Contains(t, []string{"audience", "length", "notes"}, k)
				require.NotContains(t, a, "\x00")
			}
		}
	})
	t.Run("my proposals, edit, withdraw, the limit on the page", func(t *testing.T) {
		rec := b.pageAs(ada, http.MethodGet, page, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		body := rec.Body.String()
		m := regexp.MustCompile(`/cfp/` + fx.form + `/proposals/(sub_[A-Za-z0-9]+)`).FindStringSubmatch(body)
		require.NotNil(t, m, body)
		require.Contains(t, body, `id="limit"`)
		rec = b.pageAs(ada, http.MethodGet, page+"/proposals/"+m[1], nil)
		require.Equal(t, http.StatusOK, rec.Code)
		f := valid()
		f.Set("action", "submit")
		f.Set("title", "Edited title")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals/"+m[1], f)
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, page+"?done=submitted", rec.Header().Get("Location"))
		f = valid()
		f.Set("key", "k2")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals", f)
		require.Equal(t, http.StatusConflict, rec.Code)
		require.Contains(t, rec.Body.String(), "limit of 1")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals/"+m[1]+"/withdraw", url.Values{})
		require.Equal(t, http.StatusSeeOther, rec.Code)
		s, err := b.db.Ent.Submission.Get(b.sys(), m[1])
		require.NoError(t, err)
		require.Equal(t, submission.StatusWithdrawn, s.Status)
		require.Equal(t, "Edited title", s.Title)
	})
	t.Run("a POST from another site is refused", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, page+"/proposals", strings.NewReader(valid().Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: ada})
		require.Equal(t, http.StatusForbidden, b.sendRaw(req).Code)
	})
	t.Run("a closed form says so", func(t *testing.T) {
		b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) { id } }`,
			map[string]any{"e": fx.event, "f": fx.form, "in": map[string]any{"title": "Speak at CFP Conf", "status": "closed"}})
		rec := b.pageAs(ada, http.MethodGet, page, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), "Submissions are closed")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals", valid())
		require.Equal(t, http.StatusConflict, rec.Code)
		require.Contains(t, rec.Body.String(), "This submission form is closed")
		require.Contains(t, rec.Body.String(), `value="Generics"`, "what was typed stays")
	})
}
