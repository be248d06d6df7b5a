package files_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
)

var org = pid.New("org")

func TestKeys(t *testing.T) {
	key := files.NewKey(org)
	o, id, ok := files.ParseKey(key)
	require.True(t, ok)
	require.Equal(t, org, o)
	require.Equal(t, key, files.Key(org, id))
	for _, bad := range []string{"", org, org + "/", org + "/../x", "../" + org + "/" + id, org + "/" + id + "/x",
		"evt_01jd3k2m9q8r7s6t5v4w3x2y1z/" + id, org + "/" + strings.Replace(id, "file_", "evt_", 1)} {
		_, _, ok := files.ParseKey(bad)
		require.False(t, ok, bad)
	}
	require.Empty(t, files.Key(org, "../../etc/passwd"))
	first, second := files.NewKey(org), files.NewKey(org)
	require.NotEqual(t, first, second)
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"slides.pdf":                      "slides.pdf",
		"../../etc/passwd.pdf":            "passwd.pdf",
		`C:\Users\ada\talk.pptx`:          "talk.pptx",
		"a\x00b\r\nc.txt":                 "abc.txt",
		`"quoted"<name>.png`:              "quotedname.png",
		"..":                              "file",
		"":                                "file",
		"  spaced\tname .pdf  ":           "spaced name .pdf",
		"résumé – 2027.pdf":               "résumé – 2027.pdf",
		strings.Repeat("é", 300):          strings.Repeat("é", 100),
		strings.Repeat("a", 300) + ".pdf": strings.Repeat("a", 196) + ".pdf",
	} {
		require.Equal(t, want, files.SanitizeName(in), "%q", in)
	}
	d := files.Disposition("über \"talk\".pdf")
	require.Equal(t, `attachment; filename="_ber talk.pdf"; filename*=UTF-8''%C3%BCber%20talk.pdf`, d)
}

// Samples are the first bytes of real files of each type.
var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1}, 100)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{2}, 100)...)
	pdfBytes  = []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n")
	zipBytes  = append([]byte("PK\x03\x04\x14\x00\x00\x00"), bytes.Repeat([]byte{3}, 100)...)
)

func TestPutChecksTheBytes(t *testing.T) {
	store, err := files.NewDisk(t.TempDir())
	require.NoError(t, err)
	svc := files.NewService(store, nil, "k")
	svc.MaxBytes = 1 << 10
	ctx, _ := files.Track(scope(org))
	put := func(use files.Use, name string, content []byte, rules files.Rules) (*files.Stored, error) {
		return svc.Put(ctx, use, files.Upload{Name: name, File: bytes.NewReader(content), Size: int64(len(content))}, rules)
	}
	code := func(err error) string {
		e, ok := apperr.As(err)
		require.True(t, ok, "%v", err)
		return e.Code + ": " + e.Message
	}

	s, err := put(files.Document, "../../talk.pdf", pdfBytes, files.Rules{})
	require.NoError(t, err)
	require.Equal(t, "talk.pdf", s.Name)
	require.Equal(t, "application/pdf", s.ContentType)
	require.NotContains(t, s.Key, "talk")
	s, err = put(files.Document, "deck.PPTX", zipBytes, files.Rules{})
	require.NoError(t, err)
	require.Equal(t, "application/vnd.openxmlformats-officedocument.presentationml.presentation", s.ContentType)
	s, err = put(files.Image, "me.jpg", jpegBytes, files.Rules{})
	require.NoError(t, err)
	require.Equal(t, "image/jpeg", s.ContentType)

	require.Contains(t, code(fileErr(put(files.Document, "e.pdf", nil, files.Rules{}))), "empty")
	require.Contains(t, code(fileErr(put(files.Document, "big.pdf", append(pdfBytes, make([]byte, 2<<10)...), files.Rules{}))), "larger")
	require.Contains(t, code(fileErr(put(files.Document, "fake.pdf", pngBytes, files.Rules{}))), "not a pdf")
	require.Contains(t, code(fileErr(put(files.Document, "x.exe", pdfBytes, files.Rules{}))), "cannot be uploaded")
	require.Contains(t, code(fileErr(put(files.Image, "notes.pdf", pdfBytes, files.Rules{}))), "cannot be uploaded")
	require.Contains(t, code(fileErr(put(files.Image, "logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), files.Rules{}))), "cannot be uploaded")
	require.Contains(t, code(fileErr(put(files.Document, "t.pdf", pdfBytes, files.Rules{Extensions: files.AcceptTypes(ptr(".key, pptx"))}))), "accepts only")
	require.Contains(t, code(fileErr(put(files.Document, "t.pdf", pdfBytes, files.Rules{MaxBytes: 10}))), "larger")
	// Three files were accepted, nothing else was stored.
	require.Len(t, keys(t, store), 3)

	_, err = svc.Put(scope(org), files.Document, files.Upload{Name: "a.pdf", File: bytes.NewReader(pdfBytes), Size: int64(len(pdfBytes))}, files.Rules{})
	require.ErrorContains(t, err, "outside Track")
}

func fileErr(_ *files.Stored, err error) error { return err }

func ptr[T any](v T) *T { return &v }

func TestSignedURLs(t *testing.T) {
	store, err := files.NewDisk(t.TempDir())
	require.NoError(t, err)
	svc := files.NewService(store, nil, "secret")
	key := files.NewKey(org)
	u, err := url.Parse(svc.SignedURL(key))
	require.NoError(t, err)
	parts := strings.Split(strings.TrimPrefix(u.Path, "/files/"), "/")
	require.Len(t, parts, 2)
	q := u.Query()
	got, err := svc.VerifySigned(parts[0], parts[1], q.Get("expires"), q.Get("signature"))
	require.NoError(t, err)
	require.Equal(t, key, got)

	other := pid.New("org")
	for name, args := range map[string][4]string{
		"another organization": {other, parts[1], q.Get("expires"), q.Get("signature")},
		"another file":         {parts[0], pid.New("file"), q.Get("expires"), q.Get("signature")},
		"a later expiry":       {parts[0], parts[1], "99999999999", q.Get("signature")},
		"expired":              {parts[0], parts[1], "1000", q.Get("signature")},
		"no signature":         {parts[0], parts[1], q.Get("expires"), ""},
	} {
		_, err := svc.VerifySigned(args[0], args[1], args[2], args[3])
		require.Error(t, err, name)
	}
	// Another process with another key does not accept it.
	_, err = files.NewService(store, nil, "other").VerifySigned(parts[0], parts[1], q.Get("expires"), q.Get("signature"))
	require.Error(t, err)
}

func TestServeRanges(t *testing.T) {
	store, err := files.NewDisk(t.TempDir())
	require.NoError(t, err)
	content := make([]byte, 100_000)
	_, _ = rand.Read(content)
	key := files.NewKey(org)
	require.NoError(t, store.Put(context.Background(), key, bytes.NewReader(content), int64(len(content)), "application/pdf"))
	serve := func(header http.Header) *httptest.ResponseRecorder {
		obj, err := store.Open(context.Background(), key)
		require.NoError(t, err)
		req := httptest.NewRequest(http.MethodGet, "/x", nil)
		req.Header = header
		rec := httptest.NewRecorder()
		files.Serve(rec, req, obj, "a.pdf", "application/pdf")
		return rec
	}
	rec := serve(http.Header{})
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, content, rec.Body.Bytes())
	require.Equal(t, "100000", rec.Header().Get("Content-Length"))
	require.Equal(t, "application/pdf", rec.Header().Get("Content-Type"))
	require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	require.Equal(t, `attachment; filename="a.pdf"; filename*=UTF-8''a.pdf`, rec.Header().Get("Content-Disposition"))
	require.Equal(t, "bytes", rec.Header().Get("Accept-Ranges"))
	rec = serve(http.Header{"Range": {"bytes=1000-1999"}})
	require.Equal(t, http.StatusPartialContent, rec.Code)
	require.Equal(t, content[1000:2000], rec.Body.Bytes())
	require.Equal(t, "bytes 1000-1999/100000", rec.Header().Get("Content-Range"))
	rec = serve(http.Header{"Range": {"bytes=200000-"}})
	require.Equal(t, http.StatusRequestedRangeNotSatisfiable, rec.Code)
}

// testStore is the contract every backend keeps.
func testStore(t *testing.T, store files.Store) {
	ctx := context.Background()
	content := make([]byte, 3<<20+123)
	_, _ = rand.Read(content)
	key := files.NewKey(org)
	require.NoError(t, store.Put(ctx, key, bytes.NewReader(content), int64(len(content)), "application/pdf"))
	obj, err := store.Open(ctx, key)
	require.NoError(t, err)
	require.Equal(t, int64(len(content)), obj.Size())
	require.WithinDuration(t, time.Now(), obj.Modified(), time.Minute)
	_, err = obj.Seek(1<<20, io.SeekStart)
	require.NoError(t, err)
	part := make([]byte, 1000)
	_, err = io.ReadFull(obj, part)
	require.NoError(t, err)
	require.Equal(t, content[1<<20:1<<20+1000], part)
	_, err = obj.Seek(0, io.SeekStart)
	require.NoError(t, err)
	all, err := io.ReadAll(obj)
	require.NoError(t, err)
	require.Equal(t, content, all)
	require.NoError(t, obj.Close())
	require.Equal(t, []string{key}, keys(t, store))

	// A write that fails midway leaves nothing under its key.
	broken := files.NewKey(org)
	err = store.Put(ctx, broken, io.MultiReader(bytes.NewReader(content[:1000]), failing{}), int64(len(content)), "application/pdf")
	require.Error(t, err)
	_, err = store.Open(ctx, broken)
	require.ErrorIs(t, err, files.ErrNotExist)

	require.NoError(t, store.Delete(ctx, key))
	require.NoError(t, store.Delete(ctx, key), "deleting a missing object is not an error")
	_, err = store.Open(ctx, key)
	require.ErrorIs(t, err, files.ErrNotExist)
	_, err = store.Open(ctx, "../../etc/passwd")
	require.ErrorIs(t, err, files.ErrNotExist)
	require.Empty(t, keys(t, store))
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestDiskStore(t *testing.T) {
	dir := t.TempDir()
	store, err := files.NewDisk(dir)
	require.NoError(t, err)
	testStore(t, store)
	// A partial file left by a crash is not an object, and goes once older than a day.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, org), 0o700))
	partial := filepath.Join(dir, org, ".partial-123")
	require.NoError(t, os.WriteFile(partial, []byte("x"), 0o600))
	require.Empty(t, keys(t, store))
	require.FileExists(t, partial)
	old := time.Now().Add(-25 * time.Hour)
	require.NoError(t, os.Chtimes(partial, old, old))
	require.Empty(t, keys(t, store))
	require.NoFileExists(t, partial)
}

func scope(org string) context.Context { return viewer.WithOrganization(context.Background(), org) }

func keys(t *testing.T, store files.Store) []string {
	t.Helper()
	var out []string
	require.NoError(t, store.List(context.Background(), func(k string, _ time.Time) error { out = append(out, k); return nil }))
	return out
}
