package rest_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/rest/web"
)

// TestPersonalCalendarForm: a visitor picks sessions in a widget's form, without script, and gets
// the page of their personal calendar (POST /embed/{id}/calendar); none picked, or one not in the
// published agenda, is the widget's page again with the reason in an alert, and nothing written.
func TestPersonalCalendarForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	widget := str(b.must(http.StatusCreated, http.MethodPost, st.w.base+"/widgets", b.acme,
		map[string]any{"name": "Program", "view": "agenda"}).Obj(), "id")
	b.publishWithBlocks(st)

	// The views listing sessions draw the form, a labelled checkbox per session; the others do not.
	for _, view := range []string{"agenda", "itinerary", "sessions"} {
		rec := b.sendRaw(b.request(http.MethodGet, "/embed/"+widget+"?view="+view, ""))
		require.Equal(t, http.StatusOK, rec.Code)
		body := rec.Body.String()
		require.Contains(t, body, `<form class="os-calendar-form" method="post" action="/embed/`+widget+`/calendar?view=`+view+`">`, view)
		require.Contains(t, body, `name="session" value="`+st.go1+`"`, view)
		require.Contains(t, body, `>Add Generics to my calendar</label>`, view)
		require.Contains(t, body, `Subscribe to the sessions I picked</button>`, view)
		require.Equal(t, 1, strings.Count(body, "<form"), view)
	}
	rec := b.sendRaw(b.request(http.MethodGet, "/embed/"+widget+"?view=speakers", ""))
	require.NotContains(t, rec.Body.String(), "<form")

	post := func(path string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://conference.example.org") // an embed: cross-site by nature
		rec := b.sendRaw(req)
		require.Equal(t, web.EmbedCSP, rec.Header().Get("Content-Security-Policy"))
		return rec
	}
	sys := viewer.System(context.Background(), "test: count personal calendars")
	count := func() int {
		n, err := b.db.Ent.PersonalCalendar.Query().Count(sys)
		require.NoError(t, err)
		return n
	}
	action := "/embed/" + widget + "/calendar"
	for name, c := range map[string]struct {
		form    url.Values
		message string
	}{
		"none":    {url.Values{}, "Pick at least one session to subscribe to."},
		"invalid": {url.Values{"session": {st.go1, st.keynote}}, "Some of the sessions you picked are not in the published program."},
		"unknown": {url.Values{"session": {"sub_nope"}}, "Some of the sessions you picked are not in the published program."},
	} {
		rec := post(action, c.form)
		require.Equal(t, http.StatusBadRequest, rec.Code, name)
		require.Regexp(t, `<p class="os-alert" role="alert">`+regexp.QuoteMeta(html.EscapeString(c.message)), rec.Body.String(), name)
		require.Contains(t, rec.Body.String(), `name="session" value="`+st.go2+`"`, "the widget's page again: "+name)
	}
	require.Zero(t, count(), "nothing written")
	require.Equal(t, http.StatusNotFound, post("/embed/emb_0000000000000000000000000/calendar",
		url.Values{"session": {st.go1}}).Code)
	require.Zero(t, count())

	rec = post(action+"?view=itinerary&theme=dark", url.Values{"session": {st.go1, st.go2}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	body := rec.Body.String()
	require.Contains(t, body, `class="mode-dark"`, "the widget's look")
	require.Contains(t, body, "It follows the published agenda")
	require.Contains(t, body, `href="/embed/`+widget+`?theme=dark&amp;view=itinerary">Back to the program</a>`)
	m := regexp.MustCompile(`<a href="(webcal://podium\.example\.test/api/v1/public/calendars/[A-Za-z0-9_-]{43}\.ics)">Subscribe in your calendar app</a>`).
		FindStringSubmatch(body)
	require.NotNil(t, m, body)
	https := "https://" + strings.TrimPrefix(m[1], "webcal://")
	require.Contains(t, body, `<a href="`+https+`">`+https+`</a>`)
	require.Equal(t, 1, count())

	rec = b.sendRaw(b.request(http.MethodGet, strings.TrimPrefix(https, "https://podium.example.test"), ""))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	cal, err := ics.ParseCalendar(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	uids := []string{}
	for _, ev := range cal.Events() {
		uids = append(uids, ev.Id())
	}
	require.ElementsMatch(t, []string{st.go1 + "@podium", st.go2 + "@podium"}, uids)
}
