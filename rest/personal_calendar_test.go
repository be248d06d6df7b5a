package rest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/personalcalendar"
	"github.com/podium/podium/ent/schema/viewer"
)

func TestPersonalCalendar(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	widget := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/widgets", b.acme,
		map[string]any{"name": "Program", "view": "agenda"}).Obj(), "id")
	create := "/api/v1/public/widgets/" + widget + "/calendars"

	// Nothing is published yet: no session can be starred.
	b.requireError(b.do(http.MethodPost, create, "", map[string]any{"sessionIds": []any{st.go1}}), 400, "invalid_input")
	b.publishWithBlocks(st)

	// Refused, and nothing written: no ids, too many, one not in the published agenda (the
	// unscheduled keynote), an unknown widget.
	b.requireError(b.do(http.MethodPost, create, "", map[string]any{"sessionIds": []any{}}), 400, "invalid_input")
	many := make([]any, 201)
	for i := range many {
		many[i] = "sub_" + itoa(i)
	}
	b.requireError(b.do(http.MethodPost, create, "", map[string]any{"sessionIds": many}), 400, "invalid_input")
	r := b.do(http.MethodPost, create, "", map[string]any{"sessionIds": []any{st.go1, st.keynote}})
	b.requireError(r, 400, "invalid_input")
	require.Contains(t, r.Raw, st.keynote)
	b.requireError(b.do(http.MethodPost, "/api/v1/public/widgets/emb_0000000000000000000000000/calendars", "",
		map[string]any{"sessionIds": []any{st.go1}}), 404, "not_found")
	sys := viewer.System(context.Background(), "test: count personal calendars")
	n, err := b.db.Ent.PersonalCalendar.Query().Count(sys)
	require.NoError(t, err)
	require.Zero(t, n)

	link := b.must(http.StatusCreated, http.MethodPost, create, "", map[string]any{"sessionIds": []any{st.go1, st.go1}}).Obj()
	url := str(link, "url")
	prefix := "https://podium.example.test/api/v1/public/calendars/"
	require.True(t, strings.HasPrefix(url, prefix), url)
	token := strings.TrimSuffix(strings.TrimPrefix(url, prefix), ".ics")
	require.Len(t, token, 43, "32 bytes, base64url")
	require.Equal(t, "webcal://podium.example.test/api/v1/public/calendars/"+token+".ics", str(link, "webcalUrl"))
	pc, err := b.db.Ent.PersonalCalendar.Query().Only(sys)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(token))
	require.Equal(t, hex.EncodeToString(sum[:]), pc.TokenHash, "only the token's hash is stored")
	require.Equal(t, []string{st.go1}, pc.SessionIds)
	require.Nil(t, pc.LastReadAt)

	path := "/api/v1/public/calendars/" + token + ".ics"
	read := func() (*ics.VEvent, string) {
		t.Helper()
		rec := b.sendRaw(b.request(http.MethodGet, path, ""))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, "text/calendar; charset=utf-8", rec.Header().Get("Content-Type"))
		require.NotEmpty(t, rec.Header().Get("Last-Modified"))
		cal, err := ics.ParseCalendar(strings.NewReader(rec.Body.String()))
		require.NoError(t, err)
		if len(cal.Events()) == 0 {
			return nil, rec.Header().Get("ETag")
		}
		require.Len(t, cal.Events(), 1, "the starred session only")
		return cal.Events()[0], rec.Header().Get("ETag")
	}
	ev, etag := read()
	require.Equal(t, st.go1+"@podium", ev.Id(), "the UID of the agenda feed")
	require.Equal(t, "Annex", ev.GetProperty(ics.ComponentPropertyLocation).Value)
	pc, err = b.db.Ent.PersonalCalendar.Get(sys, pc.ID)
	require.NoError(t, err)
	require.NotNil(t, pc.LastReadAt)
	firstRead := *pc.LastReadAt

	// The validators answer 304; a second read within the hour leaves last_read_at alone.
	req := b.request(http.MethodGet, path, "")
	req.Header.Set("If-None-Match", etag)
	require.Equal(t, http.StatusNotModified, b.sendRaw(req).Code)
	pc, err = b.db.Ent.PersonalCalendar.Get(sys, pc.ID)
	require.NoError(t, err)
	require.True(t, pc.LastReadAt.Equal(firstRead))
	// An hour later it moves again.
	require.NoError(t, b.db.Ent.PersonalCalendar.Update().Where(personalcalendar.ID(pc.ID)).
		SetLastReadAt(time.Now().Add(-2*time.Hour)).Exec(viewer.WithOrganization(context.Background(), b.acmeOrg)))
	read()
	pc, err = b.db.Ent.PersonalCalendar.Get(sys, pc.ID)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), *pc.LastReadAt, time.Minute)

	// A republished agenda shows: the session moves, then drops out when it is unscheduled.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.hall, "2027-09-10T15:00:00Z", "2027-09-10T15:45:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	ev, _ = read()
	require.Equal(t, st.go1+"@podium", ev.Id())
	require.Equal(t, "Hall", ev.GetProperty(ics.ComponentPropertyLocation).Value)
	start, err := ev.GetStartAt()
	require.NoError(t, err)
	require.True(t, start.Equal(time.Date(2027, 9, 10, 15, 0, 0, 0, time.UTC)))
	b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": st.go1, "roomId": nil, "startsAt": nil, "endsAt": nil})
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	ev, _ = read()
	require.Nil(t, ev, "a session gone from the published agenda drops out")

	// Unknown and malformed tokens are 404.
	b.requireError(b.do(http.MethodGet, "/api/v1/public/calendars/"+strings.Repeat("A", 43)+".ics", "", nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/public/calendars/nope.ics", "", nil), 404, "not_found")
}
