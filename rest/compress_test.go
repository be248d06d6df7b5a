package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

// serveWith serves a request with extra headers straight through the router, returning the raw
// recorder: compressed and 304 responses are not bodies the OpenAPI check can read.
func (b *testBundle) serveWith(method, path, key string, body string, header map[string]string) *httptest.ResponseRecorder {
	b.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	return rec
}

// decode undoes a response's Content-Encoding.
func decode(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	switch rec.Header().Get("Content-Encoding") {
	case "gzip":
		r, err := gzip.NewReader(rec.Body)
		require.NoError(t, err)
		raw, err := io.ReadAll(r)
		require.NoError(t, err)
		return raw
	case "zstd":
		r, err := zstd.NewReader(rec.Body)
		require.NoError(t, err)
		defer r.Close()
		raw, err := io.ReadAll(r)
		require.NoError(t, err)
		return raw
	case "":
		return rec.Body.Bytes()
	}
	require.Fail(t, "unexpected Content-Encoding", rec.Header().Get("Content-Encoding"))
	return nil
}

func TestCompression(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	for _, title := range []string{"Keynote", "Opening", "Closing", "Panel"} {
		b.createSession(w, title, w.grace)
	}
	sessions := w.base + "/sessions"
	raw := b.serveWith(http.MethodGet, sessions, b.acme, "", nil)
	require.Equal(t, http.StatusOK, raw.Code)
	require.Empty(t, raw.Header().Get("Content-Encoding"), "nothing accepted, nothing encoded")
	require.Equal(t, "Accept-Encoding", raw.Header().Get("Vary"), "caches must keep the encodings apart")
	require.Greater(t, raw.Body.Len(), 1024, "a body large enough to compress")

	for _, tc := range []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"gzip, deflate, br", "gzip"},
		{"zstd, gzip", "zstd"},
		{"zstd;q=0, gzip;q=0.5", "gzip"},
		{"*", "zstd"},
		{"gzip;q=0", ""},
		{"identity", ""},
		{"*;q=0", ""},
	} {
		rec := b.serveWith(http.MethodGet, sessions, b.acme, "", map[string]string{"Accept-Encoding": tc.accept})
		require.Equal(t, http.StatusOK, rec.Code, tc.accept)
		require.Equal(t, tc.want, rec.Header().Get("Content-Encoding"), tc.accept)
		require.Equal(t, "Accept-Encoding", rec.Header().Get("Vary"), tc.accept)
		require.Empty(t, rec.Header().Get("Content-Length"), tc.accept)
		if tc.want != "" {
			require.Less(t, rec.Body.Len(), raw.Body.Len()/2, tc.accept)
		}
		require.Equal(t, raw.Body.String(), string(decode(t, rec)), "%s: the same document", tc.accept)
	}

	// GraphQL JSON is compressed the same way.
	query := `{"query":"{ __schema { types { name description fields { name description } } } }"}`
	plain := b.serveWith(http.MethodPost, "/graphql", b.acme, query, nil)
	require.Equal(t, http.StatusOK, plain.Code, plain.Body.String())
	gz := b.serveWith(http.MethodPost, "/graphql", b.acme, query, map[string]string{"Accept-Encoding": "gzip"})
	require.Equal(t, "gzip", gz.Header().Get("Content-Encoding"))
	require.Equal(t, plain.Body.String(), string(decode(t, gz)))

	// Tiny bodies go out as they are, still marked as varying.
	for _, path := range []string{"/healthz", "/api/v1/events/evt_0000000000000000000000000"} {
		rec := b.serveWith(http.MethodGet, path, b.acme, "", map[string]string{"Accept-Encoding": "gzip, zstd"})
		require.Empty(t, rec.Header().Get("Content-Encoding"), path)
		require.Equal(t, "Accept-Encoding", rec.Header().Get("Vary"), path)
		require.True(t, strings.HasPrefix(strings.TrimSpace(rec.Body.String()), "{"), path)
	}

	// Bodiless answers stay bodiless.
	rec := b.serveWith(http.MethodOptions, sessions, "", "", map[string]string{"Accept-Encoding": "gzip"})
	require.Equal(t, http.StatusNoContent, rec.Code)
	require.Empty(t, rec.Header().Get("Content-Encoding"))
	require.Zero(t, rec.Body.Len())
}

func TestPublicAgendaConditional(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)

	for _, feed := range []string{"agenda.json", "agenda.ics"} {
		path := "/api/v1/public/events/" + w.event + "/" + feed
		first := b.serveWith(http.MethodGet, path, "", "", nil)
		require.Equal(t, http.StatusOK, first.Code, feed)
		etag, lastModified := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
		require.True(t, strings.HasPrefix(etag, `W/"`), "%s: %q", feed, etag)
		modified, err := http.ParseTime(lastModified)
		require.NoError(t, err, feed)
		require.WithinDuration(t, time.Now(), modified, time.Minute, feed)
		require.Equal(t, "public, max-age=60", first.Header().Get("Cache-Control"), feed)

		// The same validators for the same content.
		again := b.serveWith(http.MethodGet, path, "", "", nil)
		require.Equal(t, etag, again.Header().Get("ETag"), feed)
		require.Equal(t, first.Body.String(), again.Body.String(), feed)

		for _, h := range []map[string]string{
			{"If-None-Match": etag},
			{"If-None-Match": strings.TrimPrefix(etag, "W/")},
			{"If-None-Match": `"other", ` + etag},
			{"If-None-Match": "*"},
			{"If-Modified-Since": lastModified},
			{"If-Modified-Since": modified.Add(time.Hour).Format(http.TimeFormat)},
		} {
			rec := b.serveWith(http.MethodGet, path, "", "", h)
			require.Equal(t, http.StatusNotModified, rec.Code, "%s %v", feed, h)
			require.Zero(t, rec.Body.Len(), "%s %v", feed, h)
			require.Equal(t, etag, rec.Header().Get("ETag"), "%s %v", feed, h)
			require.Equal(t, "public, max-age=60", rec.Header().Get("Cache-Control"), "%s %v", feed, h)
		}
		for _, h := range []map[string]string{
			{"If-None-Match": `"other"`},
			// If-None-Match decides alone: a matching date does not make a stale tag current.
			{"If-None-Match": `"other"`, "If-Modified-Since": lastModified},
			{"If-Modified-Since": modified.Add(-time.Second).Format(http.TimeFormat)},
			{"If-Modified-Since": "not a date"},
		} {
			rec := b.serveWith(http.MethodGet, path, "", "", h)
			require.Equal(t, http.StatusOK, rec.Code, "%s %v", feed, h)
			require.Equal(t, first.Body.String(), rec.Body.String(), "%s %v", feed, h)
		}
	}

	// Republishing a changed agenda changes the tag: the old one no longer answers 304.
	path := "/api/v1/public/events/" + w.event + "/agenda.json"
	old := b.serveWith(http.MethodGet, path, "", "", nil).Header().Get("ETag")
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-11T09:00:00Z", "2027-09-11T09:45:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	rec := b.serveWith(http.MethodGet, path, "", "", map[string]string{"If-None-Match": old})
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotEqual(t, old, rec.Header().Get("ETag"))
	require.Contains(t, rec.Body.String(), st.go2)

	// Errors carry no validators.
	missing := b.serveWith(http.MethodGet, "/api/v1/public/events/evt_0000000000000000000000000/agenda.json", "", "",
		map[string]string{"If-None-Match": "*"})
	require.Equal(t, http.StatusNotFound, missing.Code)
	require.Empty(t, missing.Header().Get("ETag"))

	// A published feed compresses, and its validators survive.
	gz := b.serveWith(http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.json", "", "", map[string]string{"Accept-Encoding": "gzip"})
	require.Equal(t, http.StatusOK, gz.Code)
	plain := b.serveWith(http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.json", "", "", nil)
	require.Greater(t, plain.Body.Len(), 1024, "a feed large enough to compress")
	require.Equal(t, "gzip", gz.Header().Get("Content-Encoding"))
	require.Equal(t, plain.Header().Get("ETag"), gz.Header().Get("ETag"))
	require.True(t, bytes.Equal(plain.Body.Bytes(), decode(t, gz)))
}
