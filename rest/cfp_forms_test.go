package rest_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/submission"
)

const formStatusDoc = `mutation($e: ID!, $f: ID!) { %s(eventId: $e, formId: $f) { status title submissionLimit questions { key } } }`

// TestCFPFormSettings: opening and closing a form, and updating some of its settings, keep every
// other setting.
func TestCFPFormSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(2)
	vars := map[string]any{"e": fx.event, "f": fx.form}

	t.Run("CloseAndOpenKeepEverythingElse", func(t *testing.T) {
		f := b.gqlOK(b.acme, strings.Replace(formStatusDoc, "%s", "closeForm", 1), vars)["closeForm"].(map[string]any)
		require.Equal(t, "closed", f["status"])
		require.Len(t, f["questions"], 3)
		require.Equal(t, float64(2), f["submissionLimit"])
		f = b.gqlOK(b.acme, strings.Replace(formStatusDoc, "%s", "openForm", 1), vars)["openForm"].(map[string]any)
		require.Equal(t, "open", f["status"])
		require.Len(t, f["questions"], 3)
		require.Equal(t, "Speak at CFP Conf", f["title"])
	})
	t.Run("AnUpdateChangesOnlyWhatItGives", func(t *testing.T) {
		r := b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) {
		  title status submissionLimit tracks { id } questions { key } } }`,
			map[string]any{"e": fx.event, "f": fx.form, "in": map[string]any{"status": "closed"}})
		f := r["updateForm"].(map[string]any)
		require.Equal(t, "closed", f["status"])
		require.Equal(t, "Speak at CFP Conf", f["title"])
		require.Equal(t, float64(2), f["submissionLimit"])
		require.Len(t, f["questions"], 3)
		r = b.gqlOK(b.acme, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) {
		  submissionLimit questions { key } } }`,
			map[string]any{"e": fx.event, "f": fx.form, "in": map[string]any{"submissionLimit": nil}})
		require.Nil(t, r["updateForm"].(map[string]any)["submissionLimit"], "null takes the default")
		require.Len(t, r["updateForm"].(map[string]any)["questions"], 3)
	})
	t.Run("CreateNeedsATitle", func(t *testing.T) {
		r := b.gql(b.acme, createFormDoc, map[string]any{"e": fx.event, "in": map[string]any{"status": "open"}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		r = b.gql(b.acme, strings.Replace(formStatusDoc, "%s", "closeForm", 1), map[string]any{"e": fx.event, "f": "form_01jd3k2m9q8r7s6t5v4w3x2y1z"})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	})
}

// TestCFPFormLimits: each form has its own list and limit; a draft withdrawn before it was
// submitted counts against none and a draft can be deleted; a speaker is named before anything is
// kept; organizers do not see speakers' drafts.
func TestCFPFormLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.cfpFixture(nil)
	other := b.gqlOK(b.acme, createFormDoc, map[string]any{"e": a.event, "in": map[string]any{"title": "Workshops", "submissionLimit": 1}})
	formB := str(other["createForm"].(map[string]any), "id")
	pat := b.formSignIn("pat.phone@example.test", a.form)
	newDraft := func(t *testing.T, form, title string) gqlResponse {
		t.Helper()
		return b.gqlAs(pat, saveProposalDoc, map[string]any{"f": form, "in": map[string]any{"title": title, "firstName": "Pat", "lastName": "Phone"}})
	}

	t.Run("ANameIsNeeded", func(t *testing.T) {
		r := b.gqlAs(pat, saveProposalDoc, map[string]any{"f": a.form, "in": map[string]any{"title": "Nameless"}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		require.Contains(t, r.Raw, "First name")
		require.Equal(t, 0, b.proposalsOf(a.event))
		rec := b.pageAs(pat, http.MethodPost, "/cfp/"+a.form+"/proposals", url.Values{"key": {"n1"}, "title": {"Nameless"}})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		require.Contains(t, rec.Body.String(), `id="first_name-error"`)
	})
	t.Run("EachFormHasItsOwnListAndLimit", func(t *testing.T) {
		for _, title := range []string{"A1", "A2"} {
			r := newDraft(t, a.form, title)
			require.Empty(t, r.Errors, r.Raw)
		}
		mine := b.gqlAs(pat, `query($f: ID!) { myProposals(formId: $f) { title } }`, map[string]any{"f": formB})
		require.Empty(t, mine.Data["myProposals"], mine.Raw)
		rec := b.pageAs(pat, http.MethodGet, "/cfp/"+formB, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), `id="new-proposal"`)
		require.NotContains(t, rec.Body.String(), "A1")
		r := newDraft(t, formB, "B1")
		require.Empty(t, r.Errors, r.Raw)
	})
	t.Run("AWithdrawnDraftCountsNotAndADraftIsDeleted", func(t *testing.T) {
		r := newDraft(t, formB, "B2")
		require.Equal(t, []string{"submission_limit_reached"}, r.Codes(), r.Raw)
		mine := b.gqlAs(pat, `query($f: ID!) { myProposals(formId: $f) { id } }`, map[string]any{"f": formB})
		b1 := str(mine.Data["myProposals"].([]any)[0].(map[string]any), "id")
		w := b.gqlAs(pat, `mutation($f: ID!, $id: ID!) { withdrawProposal(formId: $f, id: $id) { status } }`, map[string]any{"f": formB, "id": b1})
		require.Empty(t, w.Errors, w.Raw)
		r = newDraft(t, formB, "B2")
		require.Empty(t, r.Errors, r.Raw)
		b2 := str(r.Data["saveProposal"].(map[string]any), "id")

		del := `mutation($f: ID!, $id: ID!) { deleteProposal(formId: $f, id: $id) }`
		d := b.gqlAs(pat, del, map[string]any{"f": formB, "id": b2})
		require.Empty(t, d.Errors, d.Raw)
		require.Equal(t, b2, d.Data["deleteProposal"])
		ok, err := b.db.Ent.Submission.Query().Where(submission.ID(b2)).Exist(b.sys())
		require.NoError(t, err)
		require.False(t, ok)

		// A submitted one is withdrawn, never deleted; someone else's is not found.
		r = newDraft(t, formB, "B3")
		b3 := str(r.Data["saveProposal"].(map[string]any), "id")
		s := b.gqlAs(pat, saveProposalDoc, map[string]any{"f": formB, "id": b3, "submit": true, "in": map[string]any{"title": "B3"}})
		require.Empty(t, s.Errors, s.Raw)
		require.Equal(t, []string{"invalid_input"}, b.gqlAs(pat, del, map[string]any{"f": formB, "id": b3}).Codes())
		eve := b.formSignIn("eve@example.test", formB)
		require.Equal(t, []string{"not_found"}, b.gqlAs(eve, del, map[string]any{"f": formB, "id": b3}).Codes())

		// On the page: a draft has Delete draft; deleting it goes back to the form.
		rec := b.pageAs(pat, http.MethodGet, "/cfp/"+a.form, nil)
		require.Contains(t, rec.Body.String(), "Delete draft")
		m := regexp.MustCompile(`/cfp/` + a.form + `/proposals/(sub_[A-Za-z0-9]+)/delete`).FindStringSubmatch(rec.Body.String())
		require.NotNil(t, m)
		rec = b.pageAs(pat, http.MethodPost, m[0], url.Values{})
		require.Equal(t, http.StatusSeeOther, rec.Code)
		require.Equal(t, "/cfp/"+a.form+"?done=deleted", rec.Header().Get("Location"))
	})
	t.Run("OrganizersDoNotSeeDrafts", func(t *testing.T) {
		list := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+a.event+"/submissions", b.acme, nil).Obj()
		for _, s := range list["submissions"].([]any) {
			require.NotEqual(t, "draft", s.(map[string]any)["status"])
		}
		require.Len(t, list["submissions"], 1, "B3 only: submitted")
	})
	t.Run("TheGreetingUsesTheTypedName", func(t *testing.T) {
		m, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("pat.phone@example.test"), emaillog.TypeEQ(emaillog.TypeConfirmation)).Only(b.sys())
		require.NoError(t, err)
		require.Contains(t, m.Body, "Hi Pat,")
		require.NotContains(t, m.Body, "pat.phone,")
	})
}

// TestCFPPageStates: the pages show a form's state instead of a form that fails once filled in,
// promise no email that does not come, and mark every missing answer.
func TestCFPPageStates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(1)
	page := "/cfp/" + fx.form
	two := b.gqlOK(b.acme, createFormDoc, map[string]any{"e": fx.event, "in": map[string]any{"title": "Two questions",
		"questions": []any{
			map[string]any{"key": "first", "label": "First question", "kind": "text", "required": true},
			map[string]any{"key": "second", "label": "Second question", "kind": "long_text", "required": true},
		}}})
	twoForm := str(two["createForm"].(map[string]any), "id")
	ada := b.formSignIn("ada@example.test", fx.form)
	valid := url.Values{"key": {"k1"}, "title": {"Generics"}, "q_audience": {"Gophers"}, "first_name": {"Ada"}, "last_name": {"L"},
		"cospeakers": {"Grace Hopper <grace@example.test>"}}

	t.Run("EveryMissingAnswerIsMarked", func(t *testing.T) {
		rec := b.pageAs(ada, http.MethodPost, "/cfp/"+twoForm+"/proposals", url.Values{"key": {"t1"}, "title": {"T"},
			"first_name": {"Ada"}, "action": {"submit"}})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		require.Contains(t, rec.Body.String(), `id="q_first-error"`)
		require.Contains(t, rec.Body.String(), `id="q_second-error"`)
	})
	var id string
	t.Run("EditingASubmittedProposalPromisesNoSecondEmail", func(t *testing.T) {
		f := url.Values{}
		for k, v := range valid {
			f[k] = v
		}
		f.Set("action", "submit")
		rec := b.pageAs(ada, http.MethodPost, page+"/proposals", f)
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, page+"?done=submitted", rec.Header().Get("Location"))
		body := b.pageAs(ada, http.MethodGet, page, nil).Body.String()
		id = regexp.MustCompile(`/cfp/` + fx.form + `/proposals/(sub_[A-Za-z0-9]+)`).FindStringSubmatch(body)[1]
		f.Set("title", "Generics, edited")
		rec = b.pageAs(ada, http.MethodPost, page+"/proposals/"+id, f)
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, page+"?done=updated", rec.Header().Get("Location"))
		rec = b.pageAs(ada, http.MethodGet, page+"?done=updated", nil)
		require.NotContains(t, rec.Body.String(), "confirmation is on its way")
		n, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("ada@example.test"), emaillog.TypeEQ(emaillog.TypeConfirmation)).Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 1, n)
	})
	t.Run("AFullFormSaysSoBeforeTheForm", func(t *testing.T) {
		rec := b.pageAs(ada, http.MethodGet, page+"/new", nil)
		require.Equal(t, http.StatusConflict, rec.Code)
		require.Contains(t, rec.Body.String(), "limit of 1")
		require.NotContains(t, rec.Body.String(), `id="title"`)
	})
	t.Run("ACoSpeakerHasNoCoSpeakersBox", func(t *testing.T) {
		grace := b.formSignIn("grace@example.test", fx.form)
		r := b.gqlAs(grace, answerDoc, map[string]any{"f": fx.form, "id": id, "accept": true})
		require.Empty(t, r.Errors, r.Raw)
		rec := b.pageAs(grace, http.MethodGet, page+"/proposals/"+id, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), `id="title"`)
		require.NotContains(t, rec.Body.String(), `id="cospeakers"`)
		rec = b.pageAs(ada, http.MethodGet, page+"/proposals/"+id, nil)
		require.Contains(t, rec.Body.String(), `id="cospeakers"`)
		require.Contains(t, rec.Body.String(), "grace@example.test")
	})
	t.Run("AnAcceptedProposalOffersNoSubmit", func(t *testing.T) {
		b.must(http.StatusOK, http.MethodPost, "/api/v1/events/"+fx.event+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{id}, "decision": "accept", "feedback": ""})
		rec := b.pageAs(ada, http.MethodGet, page+"/proposals/"+id, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.NotContains(t, rec.Body.String(), `id="submit"`)
		require.Contains(t, rec.Body.String(), "/portal/sessions/"+id+"/content", "content edits go through review")
	})
	t.Run("AClosedFormShowsItsState", func(t *testing.T) {
		b.gqlOK(b.acme, strings.Replace(formStatusDoc, "%s", "closeForm", 1), map[string]any{"e": fx.event, "f": fx.form})
		rec := b.pageAs(ada, http.MethodGet, page, nil)
		require.NotContains(t, rec.Body.String(), "Open until the organizers close it")
		require.Contains(t, rec.Body.String(), "Submissions are closed")
		rec = b.pageAs(ada, http.MethodGet, page+"/new", nil)
		require.Equal(t, http.StatusConflict, rec.Code)
		require.Contains(t, rec.Body.String(), "Submissions are closed")
		require.NotContains(t, rec.Body.String(), `id="title"`)
	})
}
