package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/speakeravailability"
)

// The world's event runs 2027-09-10 09:00Z to 2027-09-12 17:00Z in Europe/Berlin (UTC+2): its
// days are 2027-09-10 00:00 to 2027-09-13 00:00 Berlin time, 2027-09-09T22:00Z to 2027-09-12T22:00Z.

const setAvailabilityDoc = `mutation($e: ID!, $c: ID!, $in: SpeakerAvailabilityInput!) {
  setSpeakerAvailability(eventId: $e, contactId: $c, input: $in) {
    eventId contactId timezone availableThroughout intervals { startsAt endsAt localStart localEnd } } }`

const myAvailabilityDoc = `query($e: ID!) { myAvailability(eventId: $e) {
  contactId timezone availableThroughout intervals { startsAt endsAt localStart localEnd } } }`

const setMyAvailabilityDoc = `mutation($e: ID!, $in: SpeakerAvailabilityInput!) {
  setMyAvailability(eventId: $e, input: $in) { contactId availableThroughout intervals { startsAt endsAt localStart } } }`

// intervals is an availability body of start/end pairs.
func intervals(pairs ...string) map[string]any {
	list := []any{}
	for i := 0; i+1 < len(pairs); i += 2 {
		list = append(list, map[string]any{"startsAt": pairs[i], "endsAt": pairs[i+1]})
	}
	return map[string]any{"intervals": list}
}

// availabilityRows counts the stored rows of a contact.
func (b *testBundle) availabilityRows(contactID string) int {
	b.t.Helper()
	n, err := b.db.Ent.SpeakerAvailability.Query().Where(speakeravailability.ContactID(contactID)).Count(b.sys())
	require.NoError(b.t, err)
	return n
}

// TestAvailabilityOrganizer: an organizer sets a speaker's availability over REST (merged, stored
// in UTC, shown in the event's zone), reads it over REST and GraphQL (Contact.availability), and
// replaces it over GraphQL; an empty list means available throughout.
func TestAvailabilityOrganizer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	path := w.base + "/speakers/" + w.ada + "/availability"

	got := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
	require.Equal(t, true, got["availableThroughout"])
	require.Equal(t, []any{}, got["intervals"])
	require.Equal(t, "Europe/Berlin", got["timezone"])

	// Given in Berlin time and in UTC, overlapping and touching: stored as two intervals.
	got = b.must(http.StatusOK, http.MethodPut, path, b.acme, intervals(
		"2027-09-11T14:00:00+02:00", "2027-09-11T16:00:00+02:00",
		"2027-09-10T07:00:00Z", "2027-09-10T09:00:00Z",
		"2027-09-10T10:30:00+02:00", "2027-09-10T12:00:00+02:00",
		"2027-09-10T09:00:00Z", "2027-09-10T09:30:00Z",
	)).Obj()
	require.Equal(t, false, got["availableThroughout"])
	require.Equal(t, []any{
		map[string]any{"startsAt": "2027-09-10T07:00:00.000Z", "endsAt": "2027-09-10T10:00:00.000Z",
			"localStart": "2027-09-10T09:00:00+02:00", "localEnd": "2027-09-10T12:00:00+02:00"},
		map[string]any{"startsAt": "2027-09-11T12:00:00.000Z", "endsAt": "2027-09-11T14:00:00.000Z",
			"localStart": "2027-09-11T14:00:00+02:00", "localEnd": "2027-09-11T16:00:00+02:00"},
	}, got["intervals"])
	require.Equal(t, 2, b.availabilityRows(w.ada))
	require.Equal(t, got, b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj())

	// GraphQL reads the same on the speaker the organizers read, for several speakers at once.
	data := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { speakers { edges { node { id
		availability { availableThroughout intervals { startsAt localEnd } } } } } } }`, map[string]any{"e": w.event})
	seen := map[string]any{}
	for _, e := range data["event"].(map[string]any)["speakers"].(map[string]any)["edges"].([]any) {
		n := e.(map[string]any)["node"].(map[string]any)
		seen[str(n, "id")] = n["availability"]
	}
	require.Equal(t, map[string]any{"availableThroughout": false, "intervals": []any{
		map[string]any{"startsAt": "2027-09-10T07:00:00.000Z", "localEnd": "2027-09-10T12:00:00+02:00"},
		map[string]any{"startsAt": "2027-09-11T12:00:00.000Z", "localEnd": "2027-09-11T16:00:00+02:00"}}}, seen[w.ada])
	require.Equal(t, map[string]any{"availableThroughout": true, "intervals": []any{}}, seen[w.grace])

	// The mutation replaces the rows; the whole last day up to midnight is within the event.
	data = b.gqlOK(b.acme, setAvailabilityDoc, map[string]any{"e": w.event, "c": w.ada,
		"in": intervals("2027-09-12T00:00:00+02:00", "2027-09-13T00:00:00+02:00")})
	a := data["setSpeakerAvailability"].(map[string]any)
	require.Equal(t, w.ada, a["contactId"])
	require.Equal(t, []any{map[string]any{"startsAt": "2027-09-11T22:00:00.000Z", "endsAt": "2027-09-12T22:00:00.000Z",
		"localStart": "2027-09-12T00:00:00+02:00", "localEnd": "2027-09-13T00:00:00+02:00"}}, a["intervals"])
	require.Equal(t, 1, b.availabilityRows(w.ada))

	// An empty list: available throughout, no rows.
	got = b.must(http.StatusOK, http.MethodPut, path, b.acme, intervals()).Obj()
	require.Equal(t, true, got["availableThroughout"])
	require.Equal(t, 0, b.availabilityRows(w.ada))
	// Each replacement recorded a change for subscribers, naming the speaker; none touched the
	// agenda.
	changes := b.changesOf(w.event, "speaker.availability_changed")
	require.Len(t, changes, 3)
	for _, c := range changes {
		require.Equal(t, map[string]string{"speakerId": w.ada}, c.Data)
	}
	require.Empty(t, b.changesOf(w.event, "agenda.changed"))
}

// TestAvailabilityRefusesBadInput: every refused input answers 400 invalid_input over REST and
// invalid_input over GraphQL with a message naming the interval, and writes nothing.
func TestAvailabilityRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	path := w.base + "/speakers/" + w.ada + "/availability"
	b.must(http.StatusOK, http.MethodPut, path, b.acme, intervals("2027-09-10T09:00:00+02:00", "2027-09-10T10:00:00+02:00"))
	before := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Raw

	many := []string{}
	for i := range 51 {
		d := fmt.Sprintf("2027-09-11T%02d:%02d:00Z", i/6, i%6*10)
		e := fmt.Sprintf("2027-09-11T%02d:%02d:00Z", i/6, i%6*10+5)
		many = append(many, d, e)
	}
	for name, tc := range map[string]struct {
		body map[string]any
		says string
	}{
		"BeforeTheEvent": {intervals("2027-09-09T21:55:00Z", "2027-09-10T08:00:00Z"), "Interval 1: it must be within the event's days, Fri 10 Sep 2027 to Sun 12 Sep 2027 (Europe/Berlin)"},
		"AfterTheEvent":  {intervals("2027-09-10T08:00:00Z", "2027-09-10T09:00:00Z", "2027-09-12T20:00:00Z", "2027-09-12T22:05:00Z"), "Interval 2: it must be within the event's days"},
		"EndBeforeStart": {intervals("2027-09-10T10:00:00Z", "2027-09-10T09:00:00Z"), "Interval 1: the end must be after the start"},
		"EmptyInterval":  {intervals("2027-09-10T10:00:00Z", "2027-09-10T10:00:00Z"), "Interval 1: the end must be after the start"},
		"OffTheMark":     {intervals("2027-09-10T10:00:00Z", "2027-09-10T10:07:00Z"), "Interval 1: start and end must be on a 5-minute mark"},
		"Seconds":        {intervals("2027-09-10T10:00:30Z", "2027-09-10T11:00:00Z"), "Interval 1: start and end must be on a 5-minute mark"},
		"TooMany":        {intervals(many...), "Give at most 50 availability intervals (got 51)"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPut, path, b.acme, tc.body)
			b.requireError(r, http.StatusBadRequest, "invalid_input")
			require.Contains(t, r.ErrMessage(), tc.says)
			g := b.gql(b.acme, setAvailabilityDoc, map[string]any{"e": w.event, "c": w.ada, "in": tc.body})
			require.Equal(t, []string{"invalid_input"}, g.Codes(), g.Raw)
			require.Contains(t, g.Errors[0].Message, tc.says)
		})
	}
	// Malformed times and bodies: refused before the operation.
	for _, body := range []any{
		intervals("2027-09-10 10:00", "2027-09-10T11:00:00Z"),
		intervals("10:00", "11:00"),
		map[string]any{"intervals": []any{map[string]any{"startsAt": "2027-09-10T10:00:00Z"}}},
		map[string]any{"intervals": "all day"},
		map[string]any{},
	} {
		r := b.do(http.MethodPut, path, b.acme, body)
		require.Equal(t, http.StatusBadRequest, r.Status, r.Raw)
		require.NotEmpty(t, r.ErrMessage(), r.Raw)
	}
	g := b.gql(b.acme, setAvailabilityDoc, map[string]any{"e": w.event, "c": w.ada, "in": intervals("tomorrow", "2027-09-10T11:00:00Z")})
	require.NotEmpty(t, g.Errors, g.Raw)
	require.Nil(t, g.Data["setSpeakerAvailability"], g.Raw)
	require.Equal(t, before, b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Raw)
	require.Equal(t, 1, b.availabilityRows(w.ada))
	require.Len(t, b.changesOf(w.event, "speaker.availability_changed"), 1, "a refused input recorded a change")
}

// TestAvailabilityWalls: another organization's key cannot reach the event, an organizer cannot
// reach another event's or organization's contact, and a member who only reads cannot change it.
func TestAvailabilityWalls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	path := w.base + "/speakers/" + w.ada + "/availability"
	body := intervals("2027-09-10T09:00:00+02:00", "2027-09-10T10:00:00+02:00")

	// Another organization's key: the event is not theirs (403 forbidden, as every route of an
	// event: docs/rest-api.md §1), nothing written.
	b.requireError(b.do(http.MethodGet, path, b.globex, nil), http.StatusForbidden, "forbidden")
	b.requireError(b.do(http.MethodPut, path, b.globex, body), http.StatusForbidden, "forbidden")
	g := b.gql(b.globex, setAvailabilityDoc, map[string]any{"e": w.event, "c": w.ada, "in": body})
	require.Equal(t, []string{"forbidden"}, g.Codes(), g.Raw)
	// Globex's own event with acme's contact: not found.
	gev := str(b.createEvent(b.globex, "Globex Days"), "id")
	b.requireError(b.do(http.MethodGet, "/api/v1/events/"+gev+"/speakers/"+w.ada+"/availability", b.globex, nil), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPut, "/api/v1/events/"+gev+"/speakers/"+w.ada+"/availability", b.globex, body), http.StatusNotFound, "not_found")
	// A contact of another event of the same organization: not found.
	b.requireError(b.do(http.MethodPut, w.base+"/speakers/"+w.outsider+"/availability", b.acme, body), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPut, w.base+"/speakers/nope/availability", b.acme, body), http.StatusNotFound, "not_found")
	require.Equal(t, 0, b.availabilityRows(w.ada))
	require.Equal(t, 0, b.availabilityRows(w.outsider))
}

// TestAvailabilityPeople: a speaker reads and sets their own availability over GraphQL and on the
// portal page; they cannot reach another speaker's, and a reviewer or a stranger reaches none.
func TestAvailabilityPeople(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.createSession(w, "Engines", w.ada)
	ada, grace := b.signIn("ada@example.test"), b.signIn("grace@example.test")
	// A stranger to the event: a speaker of another organization's event.
	gev := "/api/v1/events/" + str(b.createEvent(b.globex, "Globex Days"), "id")
	b.must(http.StatusCreated, http.MethodPost, gev+"/speakers", b.globex, speakerBody("nobody@example.test"))
	stranger := b.signIn("nobody@example.test")
	roundID := str(b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds", b.acme,
		roundBody("Round", numericCriterion("Depth", 1, 5, 1, true))).Obj(), "roundId")
	b.addReviewer(w, roundID, "rev@example.test", nil)
	reviewer := b.signIn("rev@example.test")
	body := intervals("2027-09-11T09:00:00+02:00", "2027-09-11T12:30:00+02:00")

	// Ada over GraphQL.
	r := b.gqlAs(ada, myAvailabilityDoc, map[string]any{"e": w.event})
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, map[string]any{"contactId": w.ada, "timezone": "Europe/Berlin", "availableThroughout": true,
		"intervals": []any{}}, r.Data["myAvailability"])
	r = b.gqlAs(ada, setMyAvailabilityDoc, map[string]any{"e": w.event, "in": body})
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, map[string]any{"contactId": w.ada, "availableThroughout": false, "intervals": []any{
		map[string]any{"startsAt": "2027-09-11T07:00:00.000Z", "endsAt": "2027-09-11T10:30:00.000Z",
			"localStart": "2027-09-11T09:00:00+02:00"}}}, r.Data["setMyAvailability"])
	require.Equal(t, 1, b.availabilityRows(w.ada))
	// The organizer sees what Ada set.
	require.Equal(t, "2027-09-11T07:00:00.000Z", str(b.must(http.StatusOK, http.MethodGet,
		w.base+"/speakers/"+w.ada+"/availability", b.acme, nil).Obj()["intervals"].([]any)[0].(map[string]any), "startsAt"))
	// Bad input: the operation's message, nothing written.
	r = b.gqlAs(ada, setMyAvailabilityDoc, map[string]any{"e": w.event, "in": intervals("2027-09-11T09:00:00+02:00", "2027-09-11T08:00:00+02:00")})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Equal(t, 1, b.availabilityRows(w.ada))
	// Two changes in one document are refused.
	r = b.gqlAs(ada, `mutation($e: ID!, $in: SpeakerAvailabilityInput!) { a: setMyAvailability(eventId: $e, input: $in) { contactId }
		b: setMyAvailability(eventId: $e, input: $in) { contactId } }`, map[string]any{"e": w.event, "in": intervals()})
	require.NotEmpty(t, r.Errors, r.Raw)
	require.Equal(t, 1, b.availabilityRows(w.ada))

	// Nobody else reaches Ada's: the organizers' fields are refused to people without an
	// organization role, and the own fields know only the caller's contact.
	for name, cookie := range map[string]string{"Grace": grace, "Reviewer": reviewer, "Stranger": stranger} {
		t.Run(name, func(t *testing.T) {
			r := b.gqlAs(cookie, setAvailabilityDoc, map[string]any{"e": w.event, "c": w.ada, "in": intervals()})
			require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
			r = b.gqlAs(cookie, `query($e: ID!) { event(id: $e) { speaker(id: "`+w.ada+`") { availability { availableThroughout } } } }`,
				map[string]any{"e": w.event})
			require.NotEmpty(t, r.Errors, r.Raw)
			require.NotContains(t, r.Raw, "2027-09-11")
			if cookie != grace {
				r = b.gqlAs(cookie, myAvailabilityDoc, map[string]any{"e": w.event})
				require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
				r = b.gqlAs(cookie, setMyAvailabilityDoc, map[string]any{"e": w.event, "in": intervals()})
				require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
				rec := b.pageAs(cookie, http.MethodPost, "/portal/availability", url.Values{"event": {w.event}, "clear": {"1"}})
				require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
				require.Equal(t, http.StatusNotFound, b.pageAs(cookie, http.MethodGet, "/portal/availability?event="+w.event, nil).Code)
			}
			require.Equal(t, 1, b.availabilityRows(w.ada))
		})
	}
	// Grace speaks at the event too: her own calls reach her own contact only.
	r = b.gqlAs(grace, setMyAvailabilityDoc, map[string]any{"e": w.event, "in": intervals("2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z")})
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, w.grace, r.Data["setMyAvailability"].(map[string]any)["contactId"])
	require.Equal(t, 1, b.availabilityRows(w.grace))
	require.Equal(t, 1, b.availabilityRows(w.ada))
	// An API key has no own availability.
	g := b.gql(b.acme, myAvailabilityDoc, map[string]any{"e": w.event})
	require.Equal(t, []string{"not_found"}, g.Codes(), g.Raw)

	// The portal page: in the event's zone, one row per interval and an empty one.
	rec := b.pageAs(ada, http.MethodGet, "/portal/availability", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	page := rec.Body.String()
	require.Contains(t, page, "Europe/Berlin")
	require.Contains(t, page, `value="09:00"`)
	require.Contains(t, page, `value="12:30"`)
	require.Contains(t, page, `<option value="2027-09-11" selected>`)

	// Saving two rows (one blank row ignored) on the page.
	form := url.Values{"event": {w.event}, "save": {"1"},
		"day": {"2027-09-10", "2027-09-12", "2027-09-11"}, "start": {"14:00", "09:00", ""}, "end": {"15:30", "00:00", ""}}
	rec = b.pageAs(ada, http.MethodPost, "/portal/availability", form)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/portal/availability?event="+w.event+"&done=saved", rec.Header().Get("Location"))
	got := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.ada+"/availability", b.acme, nil).Obj()
	require.Equal(t, []any{
		map[string]any{"startsAt": "2027-09-10T12:00:00.000Z", "endsAt": "2027-09-10T13:30:00.000Z",
			"localStart": "2027-09-10T14:00:00+02:00", "localEnd": "2027-09-10T15:30:00+02:00"},
		map[string]any{"startsAt": "2027-09-12T07:00:00.000Z", "endsAt": "2027-09-12T22:00:00.000Z",
			"localStart": "2027-09-12T09:00:00+02:00", "localEnd": "2027-09-13T00:00:00+02:00"},
	}, got["intervals"])

	// Refused on the page: the reason at the top and at the row, the typed values kept, nothing
	// written.
	for _, bad := range []url.Values{
		{"day": {"2027-09-10"}, "start": {"11:00"}, "end": {"10:00"}},
		{"day": {"2027-09-10"}, "start": {"11:03"}, "end": {"12:00"}},
		{"day": {"2027-09-20"}, "start": {"11:00"}, "end": {"12:00"}},
		{"day": {"2027-09-10"}, "start": {"eleven"}, "end": {"12:00"}},
		{"day": {"2027-09-10"}, "start": {"11:00"}, "end": {""}},
	} {
		bad.Set("event", w.event)
		bad.Set("save", "1")
		rec = b.pageAs(ada, http.MethodPost, "/portal/availability", bad)
		require.Equal(t, http.StatusBadRequest, rec.Code, bad)
		page := rec.Body.String()
		require.Contains(t, page, `role="alert"`, bad)
		require.Contains(t, page, `aria-invalid="true"`, bad)
		require.Equal(t, got, b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.ada+"/availability", b.acme, nil).Obj())
	}

	rec = b.pageAs(ada, http.MethodPost, "/portal/availability", url.Values{"event": {w.event}, "save": {"1"},
		"day": {"2027-09-10", "2027-09-10"}, "start": {"11:00"}, "end": {"12:00"}})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), `role="alert"`)

	// Adding and removing rows without JavaScript: the form comes back, nothing saved.
	rec = b.pageAs(ada, http.MethodPost, "/portal/availability", url.Values{"event": {w.event}, "add": {"1"},
		"day": {"2027-09-10"}, "start": {"08:00"}, "end": {"09:00"}})
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, 3, strings.Count(rec.Body.String(), `name="start"`), "the typed row, one added and one blank")
	// A ticked remove box drops its row when saving.
	rec = b.pageAs(ada, http.MethodPost, "/portal/availability", url.Values{"event": {w.event}, "save": {"1"}, "remove": {"0"},
		"day": {"2027-09-10", "2027-09-11"}, "start": {"08:00", "10:00"}, "end": {"09:00", "11:00"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	got = b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.ada+"/availability", b.acme, nil).Obj()
	require.Equal(t, []any{map[string]any{"startsAt": "2027-09-11T08:00:00.000Z", "endsAt": "2027-09-11T09:00:00.000Z",
		"localStart": "2027-09-11T10:00:00+02:00", "localEnd": "2027-09-11T11:00:00+02:00"}}, got["intervals"])
	page = b.pageAs(ada, http.MethodGet, "/portal/availability?done=saved", nil).Body.String()
	require.Contains(t, page, "Your availability was saved.")
	require.Contains(t, page, "Sat 11 Sep 2027, 10:00–11:00")

	// A cross-site post is refused.
	req := httptest.NewRequest(http.MethodPost, "/portal/availability", strings.NewReader(url.Values{"event": {w.event}, "clear": {"1"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: ada})
	require.Equal(t, http.StatusForbidden, b.sendRaw(req).Code)
	require.Equal(t, 1, b.availabilityRows(w.ada))
	// Clearing: available throughout.
	rec = b.pageAs(ada, http.MethodPost, "/portal/availability", url.Values{"event": {w.event}, "clear": {"1"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, 0, b.availabilityRows(w.ada))
}
