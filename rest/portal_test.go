package rest_test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/taskassignment"
)

// portalWorld is a files world where Ada speaks in a session owing one file and one task of
// hers, and Grace speaks in another event of acme.
type portalWorld struct {
	*filesWorld
	task, ada, grace, graceContact string
}

func setupPortal(t *testing.T, limit int64) *portalWorld {
	t.Helper()
	w := &portalWorld{filesWorld: setupFiles(t, nil, limit)}
	b := w.testBundle
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Send your bio",
		"description": nil, "scope": "speaker", "dueDate": nil})
	tasks := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+w.sessID+"/tasks", b.acme, nil).List()
	require.Len(t, tasks, 1)
	w.task = str(tasks[0].(map[string]any), "id")
	other := str(b.createEvent(b.acme, "Other Days"), "id")
	w.graceContact = str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+other+"/speakers", b.acme,
		speakerBody("grace@example.test")).Obj(), "id")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+other+"/sessions", b.acme, map[string]any{
		"title": "Compilers", "description": nil, "formatId": nil, "speakerIds": []any{w.graceContact}})
	w.ada, w.grace = b.signIn("ada@example.test"), b.signIn("grace@example.test")
	return w
}

// sessionRow is the organizer's row of Ada's session in GET …/sessions.
func (w *portalWorld) sessionRow() map[string]any {
	w.t.Helper()
	for _, m := range sessionsOf(w.must(http.StatusOK, http.MethodGet, w.base+"/sessions", w.acme, nil).Obj()) {
		if m["id"] == w.sessID {
			return m
		}
	}
	w.t.Fatal("no session row")
	return nil
}

// speakerOfRow is the one speaker of a session row.
func speakerOfRow(row map[string]any) map[string]any {
	return row["speakers"].([]any)[0].(map[string]any)
}

// uploadPage posts a file to the portal's upload form as cookie.
func (w *portalWorld) uploadPage(cookie, id, name string, content []byte) *httptest.ResponseRecorder {
	w.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		require.NoError(w.t, err)
		_, _ = io.Copy(fw, bytes.NewReader(content))
	}
	require.NoError(w.t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/portal/deliverables/"+id, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	return w.sendRaw(req)
}

// TestPortalPages: a speaker confirms (twice: one stamp), ticks a task, uploads and replaces a
// file, downloads their calendar; the organizer's session list shows it. Another speaker's ids,
// a file over the limit or of the wrong type, and a cross-site post change nothing.
func TestPortalPages(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 1<<20)
	b := w.testBundle

	// Every page answers, in the event's shell, and only with Ada's own records.
	for _, path := range []string{"/portal", "/portal/submissions", "/portal/sessions", "/portal/tasks", "/portal/resources"} {
		rec := b.pageAs(w.ada, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, rec.Code, path)
		require.Contains(t, rec.Body.String(), "Files Days", path)
		require.Contains(t, rec.Body.String(), `aria-current="page"`, path)
		require.NotContains(t, rec.Body.String(), "Compilers", path)
	}
	tasksPage := b.pageAs(w.ada, http.MethodGet, "/portal/tasks", nil).Body.String()
	require.Contains(t, tasksPage, "Send your bio")
	require.Contains(t, tasksPage, "up to 1 MB")
	require.Contains(t, b.pageAs(w.ada, http.MethodGet, "/portal", nil).Body.String(), `id="confirm-banner"`)
	require.Equal(t, http.StatusNotFound, b.pageAs(w.ada, http.MethodGet, "/portal/nothing-here", nil).Code)
	// Not signed in: sent to sign in and back.
	rec := b.pageAs("", http.MethodGet, "/portal/tasks", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/auth/signin?next=%2Fportal%2Ftasks", rec.Header().Get("Location"))

	before := w.sessionRow()
	require.Nil(t, speakerOfRow(before)["confirmedAt"], before)

	// Grace uses Ada's ids: the answer of ids that do not exist, nothing written.
	require.Equal(t, http.StatusNotFound, b.pageAs(w.grace, http.MethodPost, "/portal/confirm", url.Values{"contact": {w.contact}}).Code)
	require.Equal(t, http.StatusNotFound, b.pageAs(w.grace, http.MethodPost, "/portal/tasks/"+w.task, url.Values{"done": {"1"}}).Code)
	require.Equal(t, http.StatusNotFound, w.uploadPage(w.grace, w.deliverable, "slides.pdf", pdf(2000)).Code)
	require.Equal(t, http.StatusNotFound, b.pageAs(w.grace, http.MethodPost, "/portal/deliverables/"+w.deliverable+"/remove", nil).Code)
	for _, doc := range []string{
		`mutation { confirmMyParticipation(contactId: "` + w.contact + `") { id } }`,
		`mutation { setMyTaskDone(id: "` + w.task + `", done: true) { id } }`,
		`mutation { removeMyDeliverable(id: "` + w.deliverable + `") { id } }`,
	} {
		theirs := b.gqlCookie(w.grace, doc, nil)
		require.Equal(t, []string{"not_found"}, theirs.Codes(), theirs.Raw)
	}
	require.Equal(t, before, w.sessionRow(), "another speaker's requests wrote something")

	// A cross-site post is refused.
	req := httptest.NewRequest(http.MethodPost, "/portal/confirm", strings.NewReader("contact="+w.contact))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: w.ada})
	require.Equal(t, http.StatusForbidden, b.sendRaw(req).Code)

	// Confirm, twice (a double submit): one stamp.
	for range 2 {
		rec := b.pageAs(w.ada, http.MethodPost, "/portal/confirm", url.Values{"contact": {w.contact}})
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, "/portal?done=confirmed", rec.Header().Get("Location"))
	}
	ct, err := b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.NoError(t, err)
	require.Equal(t, contact.WorkflowStatusConfirmed, ct.WorkflowStatus)
	stamp := *ct.ConfirmedAt
	rec = b.pageAs(w.ada, http.MethodPost, "/portal/confirm", url.Values{"contact": {w.contact}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	ct, _ = b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.True(t, stamp.Equal(*ct.ConfirmedAt), "a second confirmation moved confirmedAt")
	home := b.pageAs(w.ada, http.MethodGet, "/portal?done=confirmed", nil).Body.String()
	require.Contains(t, home, "your participation is confirmed")
	require.NotContains(t, home, `id="confirm-banner"`)

	// The task, done and back.
	require.Equal(t, http.StatusSeeOther, b.pageAs(w.ada, http.MethodPost, "/portal/tasks/"+w.task, url.Values{"done": {"1"}}).Code)
	a, err := b.db.Ent.TaskAssignment.Get(b.sys(), w.task)
	require.NoError(t, err)
	require.Equal(t, taskassignment.StatusDone, a.Status)
	require.Equal(t, http.StatusBadRequest, b.pageAs(w.ada, http.MethodPost, "/portal/tasks/"+w.task, url.Values{"done": {"maybe"}}).Code)

	// Uploads: too large, the wrong type, no file at all — the page says why, nothing stored.
	for _, c := range []struct {
		name    string
		content []byte
		status  int
		says    string
	}{
		{"slides.pdf", pdf(2 << 20), http.StatusRequestEntityTooLarge, "larger"},
		{"slides.exe", []byte("MZ not a document at all"), http.StatusBadRequest, "cannot be uploaded here"},
		{"slides.pdf", png, http.StatusBadRequest, "PDF"},
		{"", nil, http.StatusBadRequest, "Choose a file"},
	} {
		rec := w.uploadPage(w.ada, w.deliverable, c.name, c.content)
		require.Equal(t, c.status, rec.Code, rec.Body.String())
		body := rec.Body.String()
		require.Contains(t, body, `aria-describedby="file-`+w.deliverable+`-hint file-`+w.deliverable+`-error"`)
		require.Contains(t, body, `id="file-`+w.deliverable+`-error"`)
		require.Contains(t, strings.ToLower(body), strings.ToLower(c.says), body)
		require.Empty(t, w.objects(), c.name)
	}
	rec = w.uploadPage(w.ada, w.deliverable, "slides.pdf", pdf(2000))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	d, err := b.db.Ent.DeliverableAssignment.Get(b.sys(), w.deliverable)
	require.NoError(t, err)
	require.Equal(t, deliverableassignment.StatusUploaded, d.Status)
	require.Equal(t, "slides.pdf", *d.FileName)
	// Replacing it keeps one file.
	require.Equal(t, http.StatusSeeOther, w.uploadPage(w.ada, w.deliverable, "slides-v2.pdf", pdf(3000)).Code)
	require.Contains(t, b.pageAs(w.ada, http.MethodGet, "/portal/tasks", nil).Body.String(), "slides-v2.pdf")

	row := w.sessionRow()
	require.NotNil(t, speakerOfRow(row)["confirmedAt"], row)
	require.Equal(t, "1", fmt.Sprint(row["deliverablesUploaded"]), row)
	require.Equal(t, "1", fmt.Sprint(row["tasksDone"]), row)

	// Remove, then upload again.
	require.Equal(t, http.StatusSeeOther, b.pageAs(w.ada, http.MethodPost, "/portal/deliverables/"+w.deliverable+"/remove", nil).Code)
	require.Equal(t, "0", fmt.Sprint(w.sessionRow()["deliverablesUploaded"]))

	// The calendar: the session once scheduled.
	cal := b.pageAs(w.ada, http.MethodGet, "/portal/calendar.ics", nil)
	require.Equal(t, http.StatusOK, cal.Code)
	require.Equal(t, "text/calendar; charset=utf-8", cal.Header().Get("Content-Type"))
	require.NotContains(t, cal.Body.String(), "BEGIN:VEVENT", "an unscheduled session")
	_, err = b.db.System.Exec(b.sys(), `UPDATE submissions SET starts_at = '2030-05-01T09:00:00Z', ends_at = '2030-05-01T10:00:00Z' WHERE id = $1`, w.sessID)
	require.NoError(t, err)
	cal = b.pageAs(w.ada, http.MethodGet, "/portal/calendar.ics", nil)
	require.Contains(t, cal.Body.String(), "SUMMARY:Engines")
	require.Contains(t, cal.Body.String(), "DTSTART:20300501T090000Z")
	require.Contains(t, b.pageAs(w.ada, http.MethodGet, "/portal/sessions", nil).Body.String(), `href="/portal/calendar.ics"`)

	// Declining keeps confirmedAt.
	require.Equal(t, http.StatusSeeOther, b.pageAs(w.ada, http.MethodPost, "/portal/decline", url.Values{"contact": {w.contact}}).Code)
	ct, _ = b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.Equal(t, contact.WorkflowStatusDeclined, ct.WorkflowStatus)
	require.True(t, stamp.Equal(*ct.ConfirmedAt))

	// A published resource's file downloads through the page's signed link, without a key.
	content := pdf(1500)
	up := w.upload(b.acme, attachQ, w.attachVars(), "map.pdf", content)
	require.Empty(t, up.Errors, up.Raw)
	require.NotContains(t, b.pageAs(w.ada, http.MethodGet, "/portal/resources", nil).Body.String(), "map.pdf", "an unpublished resource")
	b.must(http.StatusOK, http.MethodPatch, w.base+"/resources/"+w.resource, b.acme, with(resourceBody("Venue map"), "published", true))
	page := b.pageAs(w.ada, http.MethodGet, "/portal/resources", nil).Body.String()
	m := regexp.MustCompile(`href="([^"]+)" download>Download map.pdf`).FindStringSubmatch(page)
	require.Len(t, m, 2, page)
	signed, err := url.Parse(html.UnescapeString(m[1]))
	require.NoError(t, err)
	got := w.download(signed.RequestURI(), "", nil)
	require.Equal(t, http.StatusOK, got.Code, got.Body.String())
	require.Equal(t, content, got.Body.Bytes())
}

// TestPortalHostileValues: every form field of the portal's pages, with each hostile value, gets a
// page (never a 500) and changes nothing.
func TestPortalHostileValues(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 1<<20)
	b := w.testBundle
	before := w.sessionRow()
	ct0, err := b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.NoError(t, err)
	for _, v := range hostileGo {
		s := fmt.Sprint(v)
		for _, c := range []struct {
			path  string
			form  url.Values
			field string
		}{
			{"/portal/confirm", url.Values{"contact": {s}}, "contact"},
			{"/portal/decline", url.Values{"contact": {s}}, "contact"},
			{"/portal/event", url.Values{"event": {s}}, "event"},
			{"/portal/tasks/" + w.task, url.Values{"done": {s}}, "done"},
			{"/portal/tasks/" + url.PathEscape(s), url.Values{"done": {"1"}}, "task id"},
			{"/portal/deliverables/" + url.PathEscape(s) + "/remove", url.Values{}, "deliverable id"},
		} {
			if c.field == "done" && (s == "0" || s == "1") || strings.HasSuffix(c.field, " id") && s == "" {
				continue // a valid value; no id is another address
			}
			rec := b.pageAs(w.ada, http.MethodPost, c.path, c.form)
			require.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, rec.Code, "%s %s=%.40q: %s", c.path, c.field, s, rec.Body.String())
			require.Contains(t, rec.Header().Get("Content-Type"), "text/html")
		}
		rec := w.uploadPage(w.ada, w.deliverable, s, []byte(s))
		require.Contains(t, []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge}, rec.Code, "file name %.40q", s)
	}
	require.Equal(t, before, w.sessionRow())
	ct, err := b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.NoError(t, err)
	require.Equal(t, ct0.WorkflowStatus, ct.WorkflowStatus)
	require.Nil(t, ct.ConfirmedAt)
	require.Empty(t, w.objects())
}

// TestPortalMutations: the speaker's operations over GraphQL, for their own records.
func TestPortalMutations(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 1<<20)
	b := w.testBundle

	r := b.gqlCookie(w.ada, `mutation { setMyTaskDone(id: "`+w.task+`", done: true) { id status completedAt } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, "done", r.Data["setMyTaskDone"].(map[string]any)["status"])
	r = b.gqlCookie(w.ada, `mutation { setMyTaskDone(id: "`+w.task+`", done: false) { status completedAt } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, map[string]any{"status": "todo", "completedAt": nil}, r.Data["setMyTaskDone"])

	// A waived task stays waived.
	b.must(http.StatusOK, http.MethodPatch, w.base+"/sessions/"+w.sessID+"/tasks/"+w.task, b.acme, map[string]any{"status": "waived"})
	r = b.gqlCookie(w.ada, `mutation { setMyTaskDone(id: "`+w.task+`", done: true) { status } }`, nil)
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)

	// Two changes in one document are refused: each commits on its own.
	r = b.gqlCookie(w.ada, `mutation { a: confirmMyParticipation(contactId: "`+w.contact+`") { id }
	  b: removeMyDeliverable(id: "`+w.deliverable+`") { id } }`, nil)
	require.Equal(t, []string{"invalid_input", "invalid_input"}, r.Codes(), r.Raw)
	ct, err := b.db.Ent.Contact.Get(b.sys(), w.contact)
	require.NoError(t, err)
	require.Nil(t, ct.ConfirmedAt)

	r = b.gqlCookie(w.ada, `mutation { confirmMyParticipation(contactId: "`+w.contact+`") { workflowStatus confirmedAt } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, "confirmed", r.Data["confirmMyParticipation"].(map[string]any)["workflowStatus"])
	require.NotNil(t, r.Data["confirmMyParticipation"].(map[string]any)["confirmedAt"])

	// A null file is refused; the deliverable stays outstanding.
	r = b.gqlCookie(w.ada, `mutation { uploadMyDeliverable(id: "`+w.deliverable+`", file: null) { status } }`, nil)
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)

	// A speaker without an accepted session has nothing to confirm.
	lin := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, speakerBody("lin@example.test")).Obj(), "id")
	r = b.gqlCookie(b.signIn("lin@example.test"), `mutation { declineMyParticipation(contactId: "`+lin+`") { id } }`, nil)
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Contains(t, r.Raw, "nothing to confirm or decline")

	// An API key speaks nowhere: every id is one that does not exist.
	k := b.matrixCall(matrixCaller{key: b.acme}, `mutation { confirmMyParticipation(contactId: "`+w.contact+`") { id } }`, "")
	require.Equal(t, []string{"not_found"}, k.Codes(), k.Raw)
}

// TestPortalEvents: a speaker of two events sees one at a time and switches with the form; the
// choice is kept in a cookie, and another event's id is refused.
func TestPortalEvents(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 0)
	b := w.testBundle
	other := str(b.createEvent(b.acme, "Second Days"), "id")
	ada2 := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+other+"/speakers", b.acme,
		speakerBody("ada@example.test")).Obj(), "id")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+other+"/sessions", b.acme, map[string]any{
		"title": "Looms", "description": nil, "formatId": nil, "speakerIds": []any{ada2}})
	ada := b.signIn("ada@example.test") // a new sign-in reads both contacts

	home := b.pageAs(ada, http.MethodGet, "/portal", nil).Body.String()
	require.Contains(t, home, `name="event"`, "the switcher")
	require.Contains(t, home, "Engines")
	require.NotContains(t, home, "Looms")

	rec := b.pageAs(ada, http.MethodPost, "/portal/event", url.Values{"event": {other}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	require.Equal(t, other, cookies[0].Value)
	require.True(t, cookies[0].HttpOnly)

	req := httptest.NewRequest(http.MethodGet, "/portal", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: ada})
	req.AddCookie(cookies[0])
	page := b.sendRaw(req).Body.String()
	require.Contains(t, page, "Looms")
	require.NotContains(t, page, "Engines")
	require.Contains(t, page, "Second Days")

	// Grace's event is not Ada's: refused, nothing pinned.
	graceEvent, err := b.db.Ent.Contact.Get(b.sys(), w.graceContact)
	require.NoError(t, err)
	rec = b.pageAs(ada, http.MethodPost, "/portal/event", url.Values{"event": {graceEvent.EventID}})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), "Choose one of your events.")
	require.Empty(t, rec.Result().Cookies())
}
