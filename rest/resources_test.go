package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func resourceBody(title string) map[string]any {
	return map[string]any{"title": title, "subtitle": "", "body": "", "published": false, "audienceMode": "all",
		"attachmentKind": nil, "linkUrl": nil, "embedUrl": nil, "trackIds": []any{}, "contactIds": []any{}}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := clone(m)
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func (b *testBundle) listResources(w world) []map[string]any {
	b.t.Helper()
	return objects(b.must(http.StatusOK, http.MethodGet, w.base+"/resources", b.acme, nil).JSON)
}

func titles(list []map[string]any) []string {
	out := []string{}
	for _, r := range list {
		out = append(out, str(r, "title"))
	}
	return out
}

func TestResourceRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	url := w.base + "/resources"
	elsewhere := b.worldIn("Elsewhere 2")
	foreignTrack := str(b.saveItem(b.acme, elsewhere.event, map[string]any{"kind": "track", "name": "F"}), "id")

	base := resourceBody("Briefing")
	for name, tc := range map[string]struct {
		body          map[string]any
		code, message string
	}{
		"BlankTitle":        {with(base, "title", "  "), "invalid_input", "Enter a resource title"},
		"TracksWithoutAny":  {with(base, "audienceMode", "tracks"), "invalid_input", "Select at least one track"},
		"ContactsNone":      {with(base, "audienceMode", "contacts", "trackIds", []any{w.track1}), "invalid_input", "Select at least one speaker"},
		"ForeignTrack":      {with(base, "audienceMode", "tracks", "trackIds", []any{foreignTrack}), "invalid_input", "Choose tracks from this event"},
		"ForeignContact":    {with(base, "audienceMode", "contacts", "contactIds", []any{w.outsider}), "invalid_input", "Choose speakers from this event"},
		"LinkHTTP":          {with(base, "attachmentKind", "link", "linkUrl", "http://example.test/x"), "invalid_input", "Enter a valid HTTPS link URL"},
		"LinkRelative":      {with(base, "attachmentKind", "link", "linkUrl", "/briefing.pdf"), "invalid_input", "Enter a valid HTTPS link URL"},
		"LinkNull":          {with(base, "attachmentKind", "link"), "invalid_input", "Enter a valid HTTPS link URL"},
		"LinkScript":        {with(base, "attachmentKind", "link", "linkUrl", "javascript:alert(1)"), "invalid_input", "Enter a valid HTTPS link URL"},
		"EmbedNull":         {with(base, "attachmentKind", "embed", "linkUrl", "https://youtube.com/x"), "invalid_input", "Enter an embed URL"},
		"EmbedHTTP":         {with(base, "attachmentKind", "embed", "embedUrl", "http://www.youtube.com/embed/x"), "invalid_input", "Embed URLs must use HTTPS"},
		"EmbedGarbage":      {with(base, "attachmentKind", "embed", "embedUrl", "not a url"), "invalid_input", "Enter a valid HTTPS embed URL"},
		"EmbedSubdomain":    {with(base, "attachmentKind", "embed", "embedUrl", "https://m.youtube.com/embed/x"), "invalid_input", "Embed host is not allowed. Use YouTube, Vimeo, Loom, Google Docs, Google Drive, or Figma"},
		"EmbedLookalike":    {with(base, "attachmentKind", "embed", "embedUrl", "https://youtube.com.evil.test/x"), "invalid_input", ""},
		"EmbedOtherHost":    {with(base, "attachmentKind", "embed", "embedUrl", "https://evil.test/youtube.com"), "invalid_input", ""},
		"EmbedGoogleRoot":   {with(base, "attachmentKind", "embed", "embedUrl", "https://google.com/doc"), "invalid_input", ""},
		"EmbedWWWWWW":       {with(base, "attachmentKind", "embed", "embedUrl", "https://www.www.vimeo.com/1"), "invalid_input", ""},
		"FileKind":          {with(base, "attachmentKind", "file"), "invalid_body", ""},
		"UnknownAudience":   {with(base, "audienceMode", "everyone"), "invalid_body", ""},
		"MissingContactIds": {func() map[string]any { m := clone(base); delete(m, "contactIds"); return m }(), "invalid_body", ""},
		"MissingLinkURL":    {func() map[string]any { m := clone(base); delete(m, "linkUrl"); return m }(), "invalid_body", "linkUrl is required"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPost, url, b.acme, tc.body)
			b.requireError(r, http.StatusBadRequest, tc.code)
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage())
			}
		})
	}
	require.Empty(t, b.listResources(w), "nothing refused was stored")

	// Every allowlisted host, with and without www., in any case.
	for _, host := range []string{"youtube.com", "www.youtube.com", "youtube-nocookie.com", "www.youtube-nocookie.com",
		"vimeo.com", "www.vimeo.com", "loom.com", "www.loom.com", "docs.google.com", "www.docs.google.com",
		"drive.google.com", "www.drive.google.com", "figma.com", "WWW.Figma.COM"} {
		r := b.must(http.StatusCreated, http.MethodPost, url, b.acme,
			with(base, "title", host, "attachmentKind", "embed", "embedUrl", "https://"+host+"/embed/x", "linkUrl", "https://ignored.test")).Obj()
		require.Equal(t, "embed", r["attachmentKind"])
		require.Equal(t, "https://"+host+"/embed/x", r["embedUrl"])
		require.Nil(t, r["linkUrl"], "only the URL of the attachment kind is stored")
	}
	b.requireError(b.do(http.MethodPost, url, b.globex, base), 403, "forbidden")
}

func TestResources(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	url := w.base + "/resources"

	first := b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(resourceBody(" Briefing "), "subtitle", " Read me ",
		"published", true, "attachmentKind", "link", "linkUrl", "https://example.test/brief.pdf",
		"trackIds", []any{w.track1}, "contactIds", []any{w.ada})).Obj()
	require.Equal(t, "Briefing", first["title"])
	require.Equal(t, "Read me", first["subtitle"])
	require.Equal(t, w.event, first["eventId"])
	require.EqualValues(t, jsonNum(1), first["position"])
	require.Equal(t, "all", first["audienceMode"])
	require.Equal(t, []any{}, first["trackIds"], "ids of an audience not in use are not stored")
	require.Equal(t, []any{}, first["contactIds"])
	require.Equal(t, "link", first["attachmentKind"])
	for _, k := range []string{"embedUrl", "fileStorageKey", "fileName", "fileContentType", "fileSize"} {
		v, ok := first[k]
		require.True(t, ok, k)
		require.Nil(t, v, k)
	}
	second := b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(resourceBody("Recording guide"),
		"audienceMode", "tracks", "trackIds", []any{w.track2, w.track1, w.track2})).Obj()
	require.EqualValues(t, jsonNum(2), second["position"], "new resources go last")
	want := []string{w.track1, w.track2}
	sortStrings(want)
	require.Equal(t, anys(want), second["trackIds"])
	third := b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(resourceBody("Venue map"),
		"audienceMode", "contacts", "contactIds", []any{w.grace}, "published", true)).Obj()
	require.Equal(t, []any{w.grace}, third["contactIds"])
	require.Equal(t, []string{"Briefing", "Recording guide", "Venue map"}, titles(b.listResources(w)))

	// PATCH is a full replace.
	updated := b.must(http.StatusOK, http.MethodPatch, url+"/"+str(second, "id"), b.acme, with(resourceBody("Recording guide v2"),
		"published", true, "audienceMode", "contacts", "contactIds", []any{w.ada}, "attachmentKind", "embed",
		"embedUrl", "https://www.loom.com/embed/abc")).Obj()
	require.Equal(t, "Recording guide v2", updated["title"])
	require.Equal(t, true, updated["published"])
	require.Equal(t, []any{}, updated["trackIds"])
	require.Equal(t, []any{w.ada}, updated["contactIds"])
	require.Equal(t, "https://www.loom.com/embed/abc", updated["embedUrl"])
	require.EqualValues(t, jsonNum(2), updated["position"])
	cleared := b.must(http.StatusOK, http.MethodPatch, url+"/"+str(first, "id"), b.acme, resourceBody("Briefing")).Obj()
	require.Nil(t, cleared["attachmentKind"])
	require.Nil(t, cleared["linkUrl"])
	require.Equal(t, false, cleared["published"])
	b.requireError(b.do(http.MethodPatch, url+"/res_0000000000000000000000000", b.acme, resourceBody("x")), 404, "not_found")
	other := b.worldIn("Elsewhere 2")
	b.requireError(b.do(http.MethodPatch, other.base+"/resources/"+str(first, "id"), b.acme, resourceBody("x")), 404, "not_found")
	b.requireError(b.do(http.MethodPatch, url+"/"+str(first, "id"), b.globex, resourceBody("x")), 403, "forbidden")

	// A file resource (uploaded in the organizer app) keeps its file through a PATCH.
	_, err := b.db.System.Exec(b.sys(), `UPDATE resources SET attachment_kind = 'file', file_storage_key = 'k/venue.pdf',
		file_name = 'venue.pdf', file_content_type = 'application/pdf', file_size = 1234 WHERE id = $1`, third["id"])
	require.NoError(t, err)
	kept := b.must(http.StatusOK, http.MethodPatch, url+"/"+str(third, "id"), b.acme, with(resourceBody("Venue map (new)"),
		"published", true, "audienceMode", "contacts", "contactIds", []any{w.grace})).Obj()
	require.Equal(t, "file", kept["attachmentKind"])
	require.Equal(t, "venue.pdf", kept["fileName"])
	require.Equal(t, "k/venue.pdf", kept["fileStorageKey"])
	require.EqualValues(t, jsonNum(1234), kept["fileSize"])
	require.Equal(t, "Venue map (new)", kept["title"])
	r := b.do(http.MethodPatch, url+"/"+str(third, "id"), b.acme, with(resourceBody("Venue map"),
		"attachmentKind", "link", "linkUrl", "https://example.test/map"))
	b.requireError(r, 400, "invalid_input")
	require.Equal(t, "venue.pdf", str(b.listResources(w)[2], "fileName"), "a refused change leaves the file")

	// Reorder: listed first, duplicates and foreign ids ignored, the rest after in previous order.
	foreign := b.must(http.StatusCreated, http.MethodPost, other.base+"/resources", b.acme, resourceBody("Foreign")).Obj()
	fourth := b.must(http.StatusCreated, http.MethodPost, url, b.acme, resourceBody("Parking")).Obj()
	r = b.do(http.MethodPost, url+"/reorder", b.acme, map[string]any{"resourceIds": []any{fourth["id"], foreign["id"],
		second["id"], fourth["id"], "res_0000000000000000000000000"}})
	require.Equal(t, http.StatusNoContent, r.Status, r.Raw)
	require.Empty(t, r.Raw)
	list := b.listResources(w)
	require.Equal(t, []string{"Parking", "Recording guide v2", "Briefing", "Venue map (new)"}, titles(list))
	for i, res := range list {
		require.EqualValues(t, jsonNum(i+1), res["position"])
	}
	require.EqualValues(t, jsonNum(1), b.listResources(other)[0]["position"], "another event's order is untouched")
	b.must(http.StatusNoContent, http.MethodPost, url+"/reorder", b.acme, map[string]any{"resourceIds": []any{}})
	require.Equal(t, []string{"Parking", "Recording guide v2", "Briefing", "Venue map (new)"}, titles(b.listResources(w)))
	b.requireError(b.do(http.MethodPost, url+"/reorder", b.globex, map[string]any{"resourceIds": []any{}}), 403, "forbidden")
	created := b.must(http.StatusCreated, http.MethodPost, url, b.acme, resourceBody("Last")).Obj()
	require.EqualValues(t, jsonNum(5), created["position"])

	// Delete.
	b.requireError(b.do(http.MethodDelete, url+"/"+str(fourth, "id"), b.globex, nil), 403, "forbidden")
	require.Equal(t, http.StatusNoContent, b.do(http.MethodDelete, url+"/"+str(fourth, "id"), b.acme, nil).Status)
	b.requireError(b.do(http.MethodDelete, url+"/"+str(fourth, "id"), b.acme, nil), 404, "not_found")
	require.Len(t, b.listResources(w), 4)
}

func TestContactResources(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	url := w.base + "/resources"
	published := with(resourceBody(""), "published", true)
	b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(published, "title", "For all"))
	b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(resourceBody("Draft for all")))
	b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(published, "title", "Go speakers", "audienceMode", "tracks", "trackIds", []any{w.track1}))
	b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(published, "title", "Data speakers", "audienceMode", "tracks", "trackIds", []any{w.track2}))
	b.must(http.StatusCreated, http.MethodPost, url, b.acme, with(published, "title", "Grace only", "audienceMode", "contacts", "contactIds", []any{w.grace}))

	// Ada speaks in the Go track; Alan's Data session is cancelled; Grace's Data proposal is pending.
	accept := func(id string) {
		b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme,
			map[string]any{"submissionIds": []any{id}, "decision": "accept", "feedback": ""})
	}
	accept(b.proposeIn(w, "Go talk", "d", []string{w.track1}, w.ada))
	alans := b.proposeIn(w, "Data talk", "d", []string{w.track2}, w.alan)
	accept(alans)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+alans+"/cancel", b.acme,
		map[string]any{"cause": "speaker", "notifySpeakers": false})
	b.proposeIn(w, "Pending data talk", "d", []string{w.track2}, w.grace)

	seen := func(contact string) []string {
		data := b.gqlOK(b.acme, `query($e: ID!, $c: ID!) { event(id: $e) { speaker(id: $c) { resources { title } } } }`,
			map[string]any{"e": w.event, "c": contact})
		out := []string{}
		for _, r := range data["event"].(map[string]any)["speaker"].(map[string]any)["resources"].([]any) {
			out = append(out, r.(map[string]any)["title"].(string))
		}
		return out
	}
	require.Equal(t, []string{"For all", "Go speakers"}, seen(w.ada))
	require.Equal(t, []string{"For all"}, seen(w.alan), "a cancelled session does not count")
	require.Equal(t, []string{"For all", "Grace only"}, seen(w.grace), "a pending proposal does not count")

	// GraphQL mutations run the same code.
	res := b.gql(b.acme, `mutation($e: ID!) { createResource(eventId: $e, input: {title: "X", subtitle: "", body: "",
	  published: true, audienceMode: all, attachmentKind: embed, linkUrl: null, embedUrl: "https://vimeo.com.evil.test/1",
	  trackIds: [], contactIds: []}) { id } }`, map[string]any{"e": w.event})
	require.Equal(t, []string{"invalid_input"}, res.Codes())
	data := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { resources { title position fileSize } } }`, map[string]any{"e": w.event})
	require.Len(t, data["event"].(map[string]any)["resources"], 5)
}
