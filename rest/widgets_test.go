package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// publish schedules and publishes the stage's agenda: the keynote (Hall, 10 Sep 09:00 UTC), Generics
// (Annex, 10 Sep 12:00, track Go) and Fuzzing (Hall, 11 Sep 09:00, tracks Go and Data). Ada has a
// phone number and an approved bio; the keynote's content has a change waiting for approval.
func (b *testBundle) publish(st stage) stage {
	b.t.Helper()
	require.Equal(b.t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	require.Equal(b.t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	require.Equal(b.t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-11T09:00:00Z", "2027-09-11T09:45:00Z").Status)
	_, err := b.db.System.Exec(b.sys(), `UPDATE contacts SET phone = '+49 30 5550100', bio = 'Wrote the first program.',
		company = 'Analytical Engines', approved_profile = approved_profile || '{"bio": "Wrote the first program."}'
		WHERE id = $1`, st.w.ada)
	require.NoError(b.t, err)
	b.must(http.StatusOK, http.MethodPost, st.w.base+"/agenda/publish", b.acme, nil)
	_, err = b.db.System.Exec(b.sys(), `UPDATE submissions SET title = 'Unapproved title', content_review_status = 'pending_review',
		approved_snapshot = '{"title":"Keynote"}' WHERE id = $1`, st.keynote)
	require.NoError(b.t, err)
	return st
}

func TestProgram(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w

	// Before a publication: the event, no sessions.
	p := b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()
	require.Equal(t, []any{}, p["sessions"])
	require.Equal(t, "World", p["event"].(map[string]any)["name"])
	require.Nil(t, p["event"].(map[string]any)["agendaPublishedAt"])

	st = b.publish(st)
	p = b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()
	sessions := objects(p["sessions"])
	require.Len(t, sessions, 3)
	require.Equal(t, []any{st.keynote, st.go1, st.go2}, []any{sessions[0]["id"], sessions[1]["id"], sessions[2]["id"]}, "by start time")
	require.Equal(t, "Keynote", sessions[0]["title"], "the approved title, not the pending one")
	g := sessions[1]
	require.Equal(t, "Annex", g["roomName"])
	require.Equal(t, "2027-09-10T12:00:00.000Z", g["startsAt"])
	require.Equal(t, map[string]any{"id": w.format, "name": "Talk"}, g["format"])
	require.Nil(t, g["level"])
	ada := objects(g["speakers"])[0]
	require.Equal(t, map[string]any{"id": w.ada, "firstName": "Ada", "lastName": "Lovelace", "title": nil,
		"company": "Analytical Engines", "bio": "Wrote the first program.", "headshotUrl": nil}, ada)
	raw := b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Raw
	require.NotContains(t, raw, "ada@example.test", "no email address")
	require.NotContains(t, raw, "5550100", "no phone number")
	require.Len(t, p["tracks"], 2)
	require.Equal(t, []any{map[string]any{"id": w.format, "name": "Talk"}}, p["formats"])

	// A cancelled session leaves the program at once, without a new publication.
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+st.go1+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})
	p = b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()
	require.Len(t, p["sessions"], 2)
	require.NotContains(t, b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Raw, st.go1)

	// Another organization's event, or none: 403 as the original.
	b.requireError(b.do(http.MethodGet, w.base+"/program", b.globex, nil), 403, "forbidden")
	b.requireError(b.do(http.MethodGet, "/api/v1/events/evt_0000000000000000000000000/program", b.acme, nil), 403, "forbidden")

	// GraphQL: the same operation.
	data := b.gqlOK(b.acme, `query($e: ID!) { program(eventId: $e) { sessions { id speakers { firstName } } } }`,
		map[string]any{"e": w.event})
	require.Len(t, data["program"].(map[string]any)["sessions"], 2)
	require.Equal(t, []string{"forbidden"}, b.gql(b.globex, `query($e: ID!) { program(eventId: $e) { sessions { id } } }`,
		map[string]any{"e": w.event}).Codes())
}

// widgetOptions is a full options body, changed by edit.
func widgetOptions(edit func(map[string]any)) map[string]any {
	o := map[string]any{"trackIds": []any{}, "formatIds": []any{}, "tagIds": []any{}, "dayKeys": []any{},
		"theme": "auto", "primaryColor": nil, "dateFormat": "12h", "showSpeakerCompany": true,
		"showSpeakerTitle": true, "showSpeakerBio": true, "showSessionDescription": true, "showSessionLevel": true,
		"showSessionFormat": true, "showAddToCalendar": true, "customCss": ""}
	if edit != nil {
		edit(o)
	}
	return o
}

func TestWidgets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	base := w.base + "/widgets"

	created := b.must(http.StatusCreated, http.MethodPost, base, b.acme, map[string]any{"name": " Speakers ", "view": "speaker_gallery"}).Obj()
	id := str(created, "id")
	require.True(t, strings.HasPrefix(id, "wdg_"))
	require.Equal(t, " Speakers ", created["name"], "stored as sent")
	require.Equal(t, true, created["enabled"])
	require.Equal(t, widgetOptions(nil), created["options"], "every option, at its default")
	b.must(http.StatusCreated, http.MethodPost, base, b.acme, map[string]any{"name": "Agenda", "view": "agenda"})
	list := b.must(http.StatusOK, http.MethodGet, base, b.acme, nil).List()
	require.Len(t, list, 2)
	require.Equal(t, " Speakers ", list[0].(map[string]any)["name"], "by name")

	updated := b.must(http.StatusOK, http.MethodPatch, base+"/"+id, b.acme, map[string]any{"name": "API E2E Agenda",
		"view": "agenda", "enabled": false, "options": widgetOptions(func(o map[string]any) {
			o["theme"], o["primaryColor"], o["dateFormat"] = "light", "#1D6B4C", "24h"
			o["trackIds"] = []any{w.track1, w.track1}
			o["dayKeys"] = []any{"2027-09-10"}
			o["customCss"] = ".os-session { border-radius: 0; }"
			o["unknownKey"] = true
		})}).Obj()
	opts := updated["options"].(map[string]any)
	require.Equal(t, "#1d6b4c", opts["primaryColor"])
	require.Equal(t, []any{w.track1}, opts["trackIds"], "without duplicates")
	require.Equal(t, "24h", opts["dateFormat"])
	require.Equal(t, false, updated["enabled"])
	// An unknown option is not stored (the answer shows only known ones whatever is stored).
	require.Zero(t, b.count(`SELECT count(*) FROM embeds WHERE options ? 'unknownKey'`))

	// customCss left out reads back as "".
	body := map[string]any{"name": "A", "view": "sessions", "enabled": true, "options": widgetOptions(func(o map[string]any) { delete(o, "customCss") })}
	require.Empty(t, b.must(http.StatusOK, http.MethodPatch, base+"/"+id, b.acme, body).Obj()["options"].(map[string]any)["customCss"])

	for name, tc := range map[string]struct {
		edit func(map[string]any)
		code string
	}{
		"ColourName":     {func(o map[string]any) { o["primaryColor"] = "red" }, "invalid_input"},
		"ColourCSS":      {func(o map[string]any) { o["primaryColor"] = "#fff;}body{x:y" }, "invalid_input"},
		"Time":           {func(o map[string]any) { o["dateFormat"] = "25h" }, "invalid_input"},
		"Day":            {func(o map[string]any) { o["dayKeys"] = []any{"10/09/2027"} }, "invalid_input"},
		"StyleEnd":       {func(o map[string]any) { o["customCss"] = "a{}</style><script>alert(1)</script>" }, "invalid_input"},
		"StyleEndCase":   {func(o map[string]any) { o["customCss"] = "a{}</STYLE >" }, "invalid_input"},
		"Escape":         {func(o map[string]any) { o["customCss"] = `a{content:"\3c/style"}` }, "invalid_input"},
		"Import":         {func(o map[string]any) { o["customCss"] = `@IMPORT url(https://evil.test/x.css);` }, "invalid_input"},
		"Control":        {func(o map[string]any) { o["customCss"] = "a{}\u0000" }, "invalid_input"},
		"Theme":          {func(o map[string]any) { o["theme"] = "neon" }, "invalid_body"},
		"MissingKey":     {func(o map[string]any) { delete(o, "showSpeakerBio") }, "invalid_body"},
		"WrongType":      {func(o map[string]any) { o["trackIds"] = "all" }, "invalid_body"},
		"TooManyTracks":  {func(o map[string]any) { o["trackIds"] = anys(strings.Split(strings.Repeat("t,", 201), ",")[:201]) }, "invalid_input"},
		"LongCustomCSS":  {func(o map[string]any) { o["customCss"] = strings.Repeat("a", 20001) }, "invalid_input"},
		"EmptyTrackID":   {func(o map[string]any) { o["trackIds"] = []any{""} }, "invalid_input"},
		"ColourNotColor": {func(o map[string]any) { o["primaryColor"] = "#12345" }, "invalid_input"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPatch, base+"/"+id, b.acme, map[string]any{"name": "A", "view": "sessions", "enabled": true,
				"options": widgetOptions(tc.edit)})
			b.requireError(r, 400, tc.code)
		})
	}
	b.requireError(b.do(http.MethodPost, base, b.acme, map[string]any{"name": "x", "view": "calendar"}), 400, "invalid_body")
	b.requireError(b.do(http.MethodPost, base, b.acme, map[string]any{"name": strings.Repeat("n", 201), "view": "agenda"}), 400, "invalid_input")
	b.requireError(b.do(http.MethodPost, base, b.acme, map[string]any{"name": "a\nb", "view": "agenda"}), 400, "invalid_input")
	b.requireError(b.do(http.MethodPatch, base+"/wdg_0000000000000000000000000", b.acme, body), 404, "not_found")
	b.requireError(b.do(http.MethodPatch, base+"/garbage", b.acme, body), 404, "not_found")
	other := "/api/v1/events/" + str(b.createEvent(b.acme, "Other"), "id")
	b.requireError(b.do(http.MethodPatch, other+"/widgets/"+id, b.acme, body), 404, "not_found")
	b.requireError(b.do(http.MethodPatch, base+"/"+id, b.globex, body), 403, "forbidden")
	b.requireError(b.do(http.MethodGet, base, b.globex, nil), 403, "forbidden")
	b.requireError(b.do(http.MethodPost, base, b.globex, map[string]any{"name": "x", "view": "agenda"}), 403, "forbidden")
	require.Equal(t, 2, b.count(`SELECT count(*) FROM embeds`), "nothing written by a refused request")

	// Stored options that are missing or unreadable read as their defaults.
	_, err := b.db.System.Exec(b.sys(), `UPDATE embeds SET options = '{"theme":"neon","primaryColor":"red;}","trackIds":"x",
		"tagIds":["t",3],"showSpeakerBio":"no","dateFormat":"24h"}' WHERE id = $1`, id)
	require.NoError(t, err)
	var got any
	for _, wd := range objects(b.must(http.StatusOK, http.MethodGet, base, b.acme, nil).JSON) {
		if wd["id"] == id {
			got = wd["options"]
		}
	}
	require.Equal(t, widgetOptions(func(o map[string]any) { o["tagIds"], o["dateFormat"] = []any{"t"}, "24h" }), got)

	// GraphQL: the same operations and codes.
	q := `mutation($e: ID!, $w: ID!, $in: UpdateWidgetInput!) { updateWidget(eventId: $e, widgetId: $w, input: $in) { id } }`
	bad := map[string]any{"name": "A", "view": "sessions", "enabled": true, "options": widgetOptions(func(o map[string]any) { o["primaryColor"] = "blue" })}
	require.Equal(t, []string{"invalid_input"}, b.gql(b.acme, q, map[string]any{"e": w.event, "w": id, "in": bad}).Codes())
	require.Equal(t, []string{"not_found"}, b.gql(b.acme, q, map[string]any{"e": w.event, "w": "wdg_0000000000000000000000000", "in": body}).Codes())
	require.Equal(t, []string{"forbidden"}, b.gql(b.globex, q, map[string]any{"e": w.event, "w": id, "in": body}).Codes())
	data := b.gqlOK(b.acme, `mutation($e: ID!) { createWidget(eventId: $e, input: {name: "Gallery", view: speaker_gallery}) {
		view enabled options { theme dateFormat customCss } } }`, map[string]any{"e": w.event})
	require.Equal(t, map[string]any{"view": "speaker_gallery", "enabled": true, "options": map[string]any{"theme": "auto",
		"dateFormat": "12h", "customCss": ""}}, data["createWidget"])
	data = b.gqlOK(b.acme, `query($e: ID!) { widgets(eventId: $e) { id options { theme customCss } } }`, map[string]any{"e": w.event})
	require.Len(t, data["widgets"], 3)
}

// page fetches a widget page without a key.
func (b *testBundle) page(path string, header ...string) *httptest.ResponseRecorder {
	b.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.sendRaw(req)
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.publish(b.stage())
	w := st.w
	id := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/widgets", b.acme, map[string]any{"name": "Program", "view": "sessions"}).Obj(), "id")
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+st.keynote+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})

	// The page: what a visitor sees, frameable by any site, cached with validators.
	rec := b.page("/embed/" + id)
	require.Equal(t, http.StatusOK, rec.Code)
	html := rec.Body.String()
	require.Contains(t, html, "Generics")
	require.Contains(t, html, "Fuzzing")
	require.NotContains(t, html, "Keynote", "a cancelled session is never shown")
	require.NotContains(t, html, "ada@example.test")
	require.NotContains(t, html, "5550100")
	require.Contains(t, html, "Ada Lovelace")
	require.Contains(t, html, "/embed/"+id+"/ics?session="+st.go1)
	require.Contains(t, html, "https://calendar.google.com/calendar/render?")
	require.Contains(t, html, "Fri 10 Sep, 2:00 PM–2:30 PM", "12h by default, in the event's time zone")
	h := rec.Header()
	require.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors *")
	require.NotContains(t, h.Get("Content-Security-Policy"), "unsafe-inline")
	require.Empty(t, h.Get("X-Frame-Options"))
	require.Equal(t, "public, max-age=60", h.Get("Cache-Control"))
	require.NotEmpty(t, h.Get("Last-Modified"))
	etag := h.Get("ETag")
	require.NotEmpty(t, etag)
	require.Equal(t, http.StatusNotModified, b.page("/embed/"+id, "If-None-Match", etag).Code)
	require.Equal(t, http.StatusOK, b.page("/embed/"+id, "If-None-Match", `W/"other"`).Code)
	// Other pages keep their frame refusal.
	require.Equal(t, "DENY", b.page("/auth/signin").Header().Get("X-Frame-Options"))

	// Query overrides: view, theme, colour, 24h, a day filter.
	html = b.page("/embed/" + id + "?view=agenda&theme=dark&color=%23AA3300&time=24h&days=2027-09-11&calendar=0").Body.String()
	require.Contains(t, html, `class="mode-dark"`)
	require.Contains(t, html, `/static/accent/aa3300.css`)
	require.Contains(t, html, "Fuzzing")
	require.NotContains(t, html, "Generics", "only 11 September")
	require.Contains(t, html, "11:00", "09:00 UTC is 11:00 in Berlin, 24h")
	require.Contains(t, html, `class="os-day-heading">Saturday 11 September 2027`)
	require.NotContains(t, html, "calendar.google.com")
	html = b.page("/embed/" + id + "?theme=<script>&color=red&view=nope").Body.String()
	require.Contains(t, html, `class="mode-auto"`)
	require.NotContains(t, html, "<script>")

	// Saved filters, a theme and custom CSS.
	b.must(http.StatusOK, http.MethodPatch, w.base+"/widgets/"+id, b.acme, map[string]any{"name": "Program", "view": "speaker_gallery",
		"enabled": true, "options": widgetOptions(func(o map[string]any) {
			o["trackIds"], o["theme"], o["customCss"], o["showSpeakerBio"] = []any{w.track2}, "dark", ".os-gallery{gap:2rem}", false
		})})
	// Photos as organizers approved them: the public reads approvedProfile only.
	_, err := b.db.System.Exec(b.sys(), `UPDATE contacts SET headshot_url = 'https://img.example.test/alan.jpg',
		approved_profile = approved_profile || '{"headshotUrl": "https://img.example.test/alan.jpg"}' WHERE id = $1`, w.alan)
	require.NoError(t, err)
	rec = b.page("/embed/" + id)
	html = rec.Body.String()
	require.Contains(t, html, `src="https://img.example.test/alan.jpg"`, "a photo at an https address")
	// An uploaded photo's address is the API's, which visitors cannot open: initials instead.
	_, err = b.db.System.Exec(b.sys(), `UPDATE contacts SET headshot_key = 'org/file', headshot_url = 'https://podium.example.test/api/v1/events/x/files/file',
		approved_profile = approved_profile || '{"headshotKey": "org/file", "headshotUrl": "https://podium.example.test/api/v1/events/x/files/file"}'
		WHERE id = $1`, w.alan)
	require.NoError(t, err)
	rec = b.page("/embed/" + id)
	html = rec.Body.String()
	require.NotContains(t, html, "/api/v1/")
	require.Contains(t, html, `os-initials" aria-hidden="true">AT<`)
	require.Contains(t, html, `class="mode-dark"`)
	require.Contains(t, html, "Alan Turing", "Fuzzing's speaker")
	require.NotContains(t, html, "Ada Lovelace", "Generics is not in track Data")
	require.Contains(t, html, `/embed/`+id+`/custom.css?v=`)
	css := b.page("/embed/" + id + "/custom.css")
	require.Equal(t, ".os-gallery{gap:2rem}", css.Body.String())
	require.Equal(t, "text/css; charset=utf-8", css.Header().Get("Content-Type"))

	// The JSON feed: saved filters, public fields only.
	rec = b.page("/embed/" + id + "/json")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	var feed map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &feed))
	sessions := objects(feed["sessions"])
	require.Len(t, sessions, 1)
	require.Equal(t, "Fuzzing", sessions[0]["title"])
	require.Equal(t, []any{map[string]any{"name": "Alan Turing", "title": nil, "company": nil}}, sessions[0]["speakers"])
	require.Equal(t, map[string]any{"id": id, "name": "Program", "view": "speaker_gallery"}, feed["widget"])
	require.NotContains(t, rec.Body.String(), "@example.test")
	require.Equal(t, http.StatusNotModified, b.page("/embed/"+id+"/json", "If-None-Match", rec.Header().Get("ETag")).Code)

	// The calendar feed, and one session of it.
	rec = b.page("/embed/" + id + "/ics")
	require.Equal(t, "text/calendar; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Contains(t, rec.Body.String(), "SUMMARY:Fuzzing")
	require.NotContains(t, rec.Body.String(), "Generics")
	require.Contains(t, rec.Header().Get("Content-Disposition"), `filename="world-`+id+`.ics"`)
	require.NotEmpty(t, rec.Header().Get("ETag"))
	require.Contains(t, b.page("/embed/"+id+"/ics?session="+st.go2).Body.String(), "UID:"+st.go2+"@podium")
	require.Equal(t, http.StatusNotFound, b.page("/embed/"+id+"/ics?session="+st.go1).Code, "filtered out")
	require.Contains(t, b.page("/embed/"+id+"/embed.js").Body.String(), "iframe")
	// The script and the custom CSS read the widget and its event, not the program: two statements.
	for _, part := range []string{"/embed.js", "/custom.css"} {
		require.Equal(t, int64(2), statements(t, b.page("/embed/"+id+part)), part)
	}

	// Disabled, then unknown.
	b.must(http.StatusOK, http.MethodPatch, w.base+"/widgets/"+id, b.acme, map[string]any{"name": "Program", "view": "sessions",
		"enabled": false, "options": widgetOptions(nil)})
	rec = b.page("/embed/" + id)
	require.Contains(t, rec.Body.String(), "Embed disabled")
	require.NotContains(t, rec.Body.String(), "Fuzzing")
	for _, feed := range []string{"/json", "/ics", "/custom.css", "/embed.js"} {
		rec = b.page("/embed/" + id + feed)
		require.Equal(t, http.StatusNotFound, rec.Code, feed)
		require.Equal(t, "Embed disabled\n", rec.Body.String())
	}
	for _, unknown := range []string{"wdg_0000000000000000000000000", "garbage", "%3Cscript%3E"} {
		rec = b.page("/embed/" + unknown)
		require.Equal(t, http.StatusNotFound, rec.Code)
		require.Contains(t, rec.Body.String(), "This embed is unavailable.")
		require.Equal(t, http.StatusNotFound, b.page("/embed/"+unknown+"/json").Code)
	}
}

// TestProgramQueryCount: the program reads a fixed number of statements, whatever its size.
func TestProgramQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	room := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Hall"}), "id")
	count := func(sessions int) int64 {
		_, err := b.db.System.Exec(b.sys(), `UPDATE submissions SET room_id = $2, starts_at = '2027-09-10T09:00:00Z',
			ends_at = '2027-09-10T10:00:00Z' WHERE event_id = $1`, w.event, room)
		require.NoError(t, err)
		b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
		req := httptest.NewRequest(http.MethodGet, w.base+"/program", nil)
		req.Header.Set("Authorization", "Bearer "+b.acme)
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		var p map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
		require.Len(t, p["sessions"], sessions)
		return statements(t, rec)
	}
	b.createSession(w, "One", w.ada)
	one := count(1)
	for i := range 99 {
		s := b.createSession(w, "Session "+itoa(i), w.ada, w.grace, w.alan)
		_, err := b.db.System.Exec(b.sys(), "INSERT INTO submission_tracks VALUES ($1, $2), ($1, $3)", s["id"], w.track1, w.track2)
		require.NoError(t, err)
	}
	require.Equal(t, one, count(100))
	require.LessOrEqual(t, one, int64(6))
}

// TestEmbedHostile: whatever a visitor puts in a widget's URL, the answer is a page or a 4xx,
// never a failure, and nothing of it is echoed into the page unescaped.
func TestEmbedHostile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.publish(b.stage())
	id := str(b.must(http.StatusCreated, http.MethodPost, st.w.base+"/widgets", b.acme, map[string]any{"name": "P", "view": "agenda"}).Obj(), "id")
	values := []string{"%00", "%FF%FE", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "..%2F..%2Fetc%2Fpasswd", strings.Repeat("a", 5000),
		"%22%3E%3Cimg%20src%3Dx%3E", "%E2%80%AE", ",,,", "%23fff%3B%7D", "1e999"}
	for _, v := range values {
		for _, path := range []string{"/embed/" + v, "/embed/" + v + "/json", "/embed/" + v + "/ics"} {
			rec := b.page(path)
			require.Equal(t, http.StatusNotFound, rec.Code, path)
			require.NotContains(t, rec.Body.String(), "<script>", path)
		}
		for _, key := range []string{"view", "theme", "color", "time", "tracks", "days", "tags", "formats", "calendar", "session"} {
			for _, suffix := range []string{"", "/json", "/ics"} {
				rec := b.page("/embed/" + id + suffix + "?" + key + "=" + v)
				require.Less(t, rec.Code, 500, "%s %s=%s", suffix, key, v)
				require.NotContains(t, rec.Body.String(), "<script>", "%s %s=%s", suffix, key, v)
				require.NotContains(t, rec.Body.String(), "<img src=x>", "%s %s=%s", suffix, key, v)
			}
		}
	}
}
