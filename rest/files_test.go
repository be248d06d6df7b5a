package rest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/files/filestest"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// filesWorld is a bundle with a file store, and an event of acme with a resource, a speaker and a
// session owing one deliverable.
type filesWorld struct {
	*testBundle
	store                                  files.Store
	svc                                    *files.Service
	tmp                                    string
	event, base, resource, contact, sessID string
	deliverable                            string
}

// setupFiles is setup with a file store (a disk store when store is nil), the upload limit, and
// the file jobs' workers running.
func setupFiles(t *testing.T, store files.Store, limit int64) *filesWorld {
	t.Helper()
	b := setup(t)
	if store == nil {
		disk, err := files.NewDisk(t.TempDir())
		require.NoError(t, err)
		store = disk
	}
	svc := files.NewService(store, b.db, "test-signing-key")
	w := &filesWorld{testBundle: b, store: store, svc: svc, tmp: t.TempDir()}
	svc.MaxBytes, svc.TempDir, svc.Jobs, svc.Log = limit, w.tmp, b.river, b.quietLog()
	log := b.quietLog()
	b.res.Ops.Files = svc

	b.handler = rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: log,
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: log})})
	b.startWorkers(jobs.Config{Files: store})

	w.event = str(b.createEvent(b.acme, "Files Days"), "id")
	w.base = "/api/v1/events/" + w.event
	w.resource = str(b.must(http.StatusCreated, http.MethodPost, w.base+"/resources", b.acme, resourceBody("Venue map")).Obj(), "id")
	w.contact = str(b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, speakerBody("ada@example.test")).Obj(), "id")
	b.must(http.StatusOK, http.MethodPost, w.base+"/file-requirements", b.acme, map[string]any{"id": nil, "label": "Slides", "scope": "session"})
	w.sessID = str(b.must(http.StatusCreated, http.MethodPost, w.base+"/sessions", b.acme, map[string]any{
		"title": "Engines", "description": nil, "formatId": nil, "speakerIds": []any{w.contact}}).Obj(), "id")
	dl := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+w.sessID+"/deliverables", b.acme, nil).List()
	require.Len(t, dl, 1)
	w.deliverable = str(dl[0].(map[string]any), "id")
	return w
}

const (
	attachQ = `mutation($eventId: ID!, $resourceId: ID!, $file: Upload) {
		attachResourceFile(eventId: $eventId, resourceId: $resourceId, file: $file) {
			id attachmentKind fileName fileContentType fileSize fileStorageKey fileDownloadUrl } }`
	removeQ = `mutation($eventId: ID!, $resourceId: ID!) {
		removeResourceFile(eventId: $eventId, resourceId: $resourceId) { id attachmentKind fileStorageKey } }`
)

func (w *filesWorld) attachVars() map[string]any {
	return map[string]any{"eventId": w.event, "resourceId": w.resource}
}

// multipartBody streams a GraphQL multipart request whose variable file is content named name.
func multipartBody(query string, vars map[string]any, name string, content io.Reader) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	vars = clone(vars)
	vars["file"] = nil
	go func() {
		ops, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		_ = mw.WriteField("operations", string(ops))
		_ = mw.WriteField("map", `{"0":["variables.file"]}`)
		fw, _ := mw.CreateFormFile("0", name)
		if _, err := io.Copy(fw, content); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	return pr, mw.FormDataContentType()
}

// upload posts a GraphQL multipart request as key.
func (w *filesWorld) upload(key, query string, vars map[string]any, name string, content []byte) gqlResponse {
	w.t.Helper()
	body, contentType := multipartBody(query, vars, name, bytes.NewReader(content))
	req := httptest.NewRequest(http.MethodPost, "/graphql", body)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+key)
	return w.sendGQL(req)
}

func (w *filesWorld) sendGQL(req *http.Request) gqlResponse {
	w.t.Helper()
	r := w.send(req)
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(w.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	return out
}

// download gets path as key (no key: a signed URL) and returns the raw answer.
func (w *filesWorld) download(path, key string, header http.Header) *httptest.ResponseRecorder {
	w.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, req)
	if rec.Code == http.StatusOK || rec.Code == http.StatusPartialContent {
		w.checkResponse(req, rec)
	}
	return rec
}

// pdf is a PDF of n bytes: a real header, then random bytes.
func pdf(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	copy(b, "%PDF-1.7\n")
	return b
}

var png = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"), make([]byte, 64)...)

// objects is what the store holds.
func (w *filesWorld) objects() []string { return filestest.Keys(w.t, w.store) }

// eventually waits for cond, which the file jobs make true.
func (w *filesWorld) eventually(cond func() bool, what string) {
	w.t.Helper()
	require.Eventually(w.t, cond, 10*time.Second, 20*time.Millisecond, what)
}

// noSpooledUploads requires the upload directory to be empty: nothing of a request outlives it.
func (w *filesWorld) noSpooledUploads() {
	w.t.Helper()
	entries, err := os.ReadDir(w.tmp)
	require.NoError(w.t, err)
	require.Empty(w.t, entries)
}

// TestFileRoundTrip uploads a resource file, lists it over REST and downloads it byte-identical,
// whole, in a range and through GraphQL's signed URL; replacing and removing it delete the old
// objects once committed.
func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	testRoundTrip(t, setupFiles(t, nil, 0))
}

func testRoundTrip(t *testing.T, w *filesWorld) {
	content := pdf(3<<20 + 17)
	r := w.upload(w.acme, attachQ, w.attachVars(), "../../Venue map.pdf", content)
	require.Empty(t, r.Errors, r.Raw)
	res := r.Data["attachResourceFile"].(map[string]any)
	require.Equal(t, "file", res["attachmentKind"])
	require.Equal(t, "Venue map.pdf", res["fileName"])
	require.Equal(t, "application/pdf", res["fileContentType"])
	key := str(res, "fileStorageKey")
	org, fileID, ok := files.ParseKey(key)
	require.True(t, ok, key)
	require.Equal(t, w.acmeOrg, org)
	require.Equal(t, []string{key}, w.objects())
	w.noSpooledUploads()

	// REST lists the file fields.
	list := w.must(http.StatusOK, http.MethodGet, w.base+"/resources", w.acme, nil).List()
	require.Len(t, list, 1)
	listed := list[0].(map[string]any)
	require.Equal(t, key, listed["fileStorageKey"])
	require.Equal(t, "Venue map.pdf", listed["fileName"])
	require.Equal(t, "application/pdf", listed["fileContentType"])
	require.Equal(t, int64(len(content)), num(t, listed, "fileSize"))

	// REST downloads it.
	rec := w.download(w.base+"/files/"+fileID, w.acme, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.True(t, bytes.Equal(content, rec.Body.Bytes()), "the download differs from the upload")
	require.Equal(t, "application/pdf", rec.Header().Get("Content-Type"))
	require.Equal(t, "3145745", rec.Header().Get("Content-Length"))
	require.Equal(t, `attachment; filename="Venue map.pdf"; filename*=UTF-8''Venue%20map.pdf`, rec.Header().Get("Content-Disposition"))
	require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	require.Empty(t, rec.Header().Get("Content-Encoding"))
	rec = w.download(w.base+"/files/"+fileID, w.acme, http.Header{"Range": {"bytes=1048576-1049575"}, "Accept-Encoding": {"gzip"}})
	require.Equal(t, http.StatusPartialContent, rec.Code)
	require.Equal(t, content[1<<20:1<<20+1000], rec.Body.Bytes())
	require.Empty(t, rec.Header().Get("Content-Encoding"))

	// GraphQL's signed URL downloads it without a key, until it is tampered with.
	signed := str(res, "fileDownloadUrl")
	require.True(t, strings.HasPrefix(signed, "/files/"+w.acmeOrg+"/"+fileID+"?"), signed)
	rec = w.download(signed, "", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.True(t, bytes.Equal(content, rec.Body.Bytes()))
	rec = w.download(strings.Replace(signed, "signature=", "signature=x", 1), "", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	rec = w.download("/files/"+w.globexOrg+"/"+fileID+"?"+strings.SplitN(signed, "?", 2)[1], "", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)

	// A REST PATCH with attachmentKind null keeps the file.
	w.must(http.StatusOK, http.MethodPatch, w.base+"/resources/"+w.resource, w.acme, with(resourceBody("Venue map (new)")))
	require.Equal(t, key, str(w.must(http.StatusOK, http.MethodGet, w.base+"/resources", w.acme, nil).List()[0].(map[string]any), "fileStorageKey"))

	// Replacing stores the new file and deletes the old one after the commit.
	second := pdf(1000)
	r = w.upload(w.acme, attachQ, w.attachVars(), "v2.pdf", second)
	require.Empty(t, r.Errors, r.Raw)
	key2 := str(r.Data["attachResourceFile"].(map[string]any), "fileStorageKey")
	require.NotEqual(t, key, key2)
	w.eventually(func() bool { o := w.objects(); return len(o) == 1 && o[0] == key2 }, "the replaced file is deleted")
	rec = w.download(w.base+"/files/"+fileID, w.acme, nil)
	require.Equal(t, http.StatusNotFound, rec.Code)

	// Removing it clears the resource and deletes the object.
	removed := w.gqlOK(w.acme, removeQ, w.attachVars())["removeResourceFile"].(map[string]any)
	require.Nil(t, removed["attachmentKind"])
	require.Nil(t, removed["fileStorageKey"])
	w.eventually(func() bool { return len(w.objects()) == 0 }, "the removed file is deleted")
}

// TestFileBadInput sends each bad upload of docs/files.md: each gets the contract's error and
// leaves nothing stored, referenced or spooled.
func TestFileBadInput(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 1<<20)
	unchanged := func() {
		t.Helper()
		res := w.must(http.StatusOK, http.MethodGet, w.base+"/resources", w.acme, nil).List()[0].(map[string]any)
		require.Nil(t, res["fileStorageKey"])
		require.Nil(t, res["attachmentKind"])
		require.Empty(t, w.objects())
		w.noSpooledUploads()
	}
	refused := func(r gqlResponse, status int, code, message string) {
		t.Helper()
		require.Equal(t, []string{code}, r.Codes(), r.Raw)
		require.Contains(t, r.Errors[0].Message, message)
		if status != 0 {
			require.Equal(t, status, r.Status, r.Raw)
		}
		unchanged()
	}

	refused(w.upload(w.acme, attachQ, w.attachVars(), "big.pdf", pdf(1<<20+1)), http.StatusRequestEntityTooLarge,
		"payload_too_large", "larger than the limit of 1 MiB")
	refused(w.upload(w.acme, attachQ, w.attachVars(), "empty.pdf", nil), 0, "invalid_input", "empty")
	refused(w.upload(w.acme, attachQ, w.attachVars(), "slides.pdf", png), 0, "invalid_input", "not a pdf")
	refused(w.upload(w.acme, attachQ, w.attachVars(), "run.sh", []byte("#!/bin/sh\nrm -rf /\n")), 0, "invalid_input", "cannot be uploaded")
	refused(w.gql(w.acme, attachQ, w.attachVars()), 0, "invalid_input", "Choose a file")

	// Another organization's resource: refused before anything is stored.
	refused(w.upload(w.globex, attachQ, w.attachVars(), "x.pdf", pdf(100)), 0, "forbidden", "cannot access this event")

	// A truncated body: the file part never ends.
	ops, _ := json.Marshal(map[string]any{"query": attachQ, "variables": with(w.attachVars(), "file", nil)})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.file"]}`)
	fw, _ := mw.CreateFormFile("0", "cut.pdf")
	_, _ = fw.Write(pdf(5000))
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(buf.Bytes())) // no closing boundary
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+w.acme)
	refused(w.sendGQL(req), http.StatusBadRequest, "invalid_body", "ended before it was complete")

	// A file the map does not name, and a map naming a file that never comes.
	buf.Reset()
	mw = multipart.NewWriter(&buf)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.file"],"1":["variables.other"]}`)
	fw, _ = mw.CreateFormFile("0", "a.pdf")
	_, _ = fw.Write(pdf(100))
	_ = mw.Close()
	req = httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(buf.Bytes()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+w.acme)
	refused(w.sendGQL(req), http.StatusBadRequest, "invalid_body", "missing")

	// Not a multipart GraphQL request at all.
	req = httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader("--x\r\n\r\n"))
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	req.Header.Set("Authorization", "Bearer "+w.acme)
	refused(w.sendGQL(req), http.StatusBadRequest, "invalid_body", "")

	// The JSON body cap still holds for everything else.
	big := w.do(http.MethodPost, "/graphql", w.acme, map[string]any{"query": "{ viewer { __typename } }", "pad": strings.Repeat("x", 2<<20)})
	require.Equal(t, http.StatusRequestEntityTooLarge, big.Status)
}

// TestFileAcrossOrganizations: another organization's file is never readable, neither by its
// event, nor by its id under another event, nor through a signed URL of another organization.
func TestFileAcrossOrganizations(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	r := w.upload(w.acme, attachQ, w.attachVars(), "secret.pdf", pdf(2000))
	require.Empty(t, r.Errors, r.Raw)
	_, fileID, _ := files.ParseKey(str(r.Data["attachResourceFile"].(map[string]any), "fileStorageKey"))

	rec := w.download(w.base+"/files/"+fileID, w.globex, nil)
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"forbidden"`)
	theirs := str(w.createEvent(w.globex, "Globex Days"), "id")
	rec = w.download("/api/v1/events/"+theirs+"/files/"+fileID, w.globex, nil)
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"File not found"`)
	// Even a row of globex pointing at acme's key does not open acme's object.
	ctx := viewer.WithOrganization(context.Background(), w.globexOrg)
	ev, err := w.db.Ent.Event.UpdateOneID(theirs).SetLogoKey(w.acmeOrg + "/" + fileID).Save(ctx)
	require.NoError(t, err)
	require.NotNil(t, ev.LogoKey)
	rec = w.download("/api/v1/events/"+theirs+"/files/"+fileID, w.globex, nil)
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	rec = w.download("/files/"+w.acmeOrg+"/"+fileID, "", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	// Path tricks do not reach the store.
	for _, id := range []string{"..%2F..%2Fetc%2Fpasswd", "file_", "x"} {
		rec = w.download(w.base+"/files/"+id, w.acme, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, id)
	}
}

// TestFileRollback: an upload whose transaction rolls back leaves no object behind: the second
// field of the mutation fails, the whole operation rolls back, and the stored bytes are deleted
// by a job.
func TestFileRollback(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	q := `mutation($eventId: ID!, $resourceId: ID!, $file: Upload) {
		attachResourceFile(eventId: $eventId, resourceId: $resourceId, file: $file) { id }
		removeResourceFile(eventId: $eventId, resourceId: "res_00000000000000000000000000") { id } }`
	r := w.upload(w.acme, q, w.attachVars(), "a.pdf", pdf(4000))
	require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	res := w.must(http.StatusOK, http.MethodGet, w.base+"/resources", w.acme, nil).List()[0].(map[string]any)
	require.Nil(t, res["fileStorageKey"])
	w.eventually(func() bool { return len(w.objects()) == 0 }, "the rolled-back upload is deleted")
	w.noSpooledUploads()
}

// TestDeliverableUploads: an uploaded deliverable counts in deliverablesUploaded; removing it
// makes it outstanding again; the requirement's accepted types apply.
func TestDeliverableUploads(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	const up = `mutation($eventId: ID!, $sessionId: ID!, $deliverableId: ID!, $file: Upload) {
		uploadDeliverable(eventId: $eventId, sessionId: $sessionId, deliverableId: $deliverableId, file: $file) {
			status fileName contentType size storageKey downloadUrl } }`
	const rm = `mutation($eventId: ID!, $sessionId: ID!, $deliverableId: ID!) {
		removeDeliverable(eventId: $eventId, sessionId: $sessionId, deliverableId: $deliverableId) { status storageKey } }`
	vars := map[string]any{"eventId": w.event, "sessionId": w.sessID, "deliverableId": w.deliverable}
	uploaded := func() int64 {
		sessions := w.must(http.StatusOK, http.MethodGet, w.base+"/sessions", w.acme, nil).Obj()["sessions"].([]any)
		return num(t, sessions[0].(map[string]any), "deliverablesUploaded")
	}
	require.Zero(t, uploaded())
	content := pdf(70_000)
	r := w.upload(w.acme, up, vars, "slides.pdf", content)
	require.Empty(t, r.Errors, r.Raw)
	d := r.Data["uploadDeliverable"].(map[string]any)
	require.Equal(t, "uploaded", d["status"])
	require.EqualValues(t, len(content), d["size"])
	require.Equal(t, int64(1), uploaded())
	rec := w.download(str(d, "downloadUrl"), "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.True(t, bytes.Equal(content, rec.Body.Bytes()))

	d = w.gqlOK(w.acme, rm, vars)["removeDeliverable"].(map[string]any)
	require.Equal(t, "outstanding", d["status"])
	require.Zero(t, uploaded())
	w.eventually(func() bool { return len(w.objects()) == 0 }, "the removed deliverable is deleted")

	// REST records an upload only of a file stored for the caller's organization, of its size;
	// clearing it deletes the file.
	put := w.base + "/sessions/" + w.sessID + "/deliverables/" + w.deliverable
	record := func(key string, size int) response {
		return w.do(http.MethodPut, put, w.acme, map[string]any{"fileName": "s.pdf", "contentType": "application/pdf",
			"size": size, "storageKey": key})
	}
	w.requireError(record("events/x/slides.pdf", 10), http.StatusBadRequest, "invalid_input")
	w.requireError(record(files.NewKey(w.acmeOrg), 10), http.StatusBadRequest, "invalid_input")
	r = w.upload(w.acme, up, vars, "slides.pdf", content)
	require.Empty(t, r.Errors, r.Raw)
	stored := str(r.Data["uploadDeliverable"].(map[string]any), "storageKey")
	_, storedID, _ := files.ParseKey(stored)
	w.requireError(record(w.globexOrg+"/"+storedID, len(content)), http.StatusBadRequest, "invalid_input")
	w.requireError(record(stored, 10), http.StatusBadRequest, "invalid_input")
	require.Equal(t, "uploaded", record(stored, len(content)).Obj()["status"])
	w.must(http.StatusOK, http.MethodDelete, put, w.acme, nil)
	require.Zero(t, uploaded())
	w.eventually(func() bool { return len(w.objects()) == 0 }, "the cleared deliverable's file is deleted")

	// The requirement accepts only .key files of at most 1 MiB from now on (the organizer app sets
	// these; the API does not).
	_, err := w.db.System.Exec(w.sys(), `UPDATE file_requirements SET accept_types = '.key', max_size_mb = 1`)
	require.NoError(t, err)
	r = w.upload(w.acme, up, vars, "slides.key", append([]byte("PK\x03\x04"), make([]byte, 1<<20)...))
	require.Equal(t, []string{"payload_too_large"}, r.Codes(), r.Raw)
	r = w.upload(w.acme, up, vars, "slides.pdf", content)
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Zero(t, uploaded())
	require.Empty(t, w.objects())
}

// TestImages: headshots, logos and backgrounds accept images only; their URL fields lead to the
// REST download.
func TestImages(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	const headshot = `mutation($eventId: ID!, $contactId: ID!, $file: Upload) {
		uploadSpeakerHeadshot(eventId: $eventId, contactId: $contactId, file: $file) { headshotUrl headshotKey headshotDownloadUrl } }`
	vars := map[string]any{"eventId": w.event, "contactId": w.contact}
	r := w.upload(w.acme, headshot, vars, "me.pdf", pdf(500))
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	r = w.upload(w.acme, headshot, vars, "me.png", pdf(500))
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Empty(t, w.objects())
	r = w.upload(w.acme, headshot, vars, "me.png", png)
	require.Empty(t, r.Errors, r.Raw)
	c := r.Data["uploadSpeakerHeadshot"].(map[string]any)
	_, fileID, _ := files.ParseKey(str(c, "headshotKey"))
	require.Equal(t, "/api/v1/events/"+w.event+"/files/"+fileID, str(c, "headshotUrl"))
	rec := w.download(str(c, "headshotUrl"), w.acme, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "image/png", rec.Header().Get("Content-Type"))
	require.Equal(t, png, rec.Body.Bytes())
	speaker := w.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.contact, w.acme, nil).Obj()
	require.Equal(t, str(c, "headshotUrl"), speaker["headshotUrl"])

	const logo = `mutation($eventId: ID!, $kind: EventImageKind!, $file: Upload) {
		uploadEventImage(eventId: $eventId, kind: $kind, file: $file) { logoUrl logoKey backgroundUrl backgroundKey logoDownloadUrl } }`
	r = w.upload(w.acme, logo, map[string]any{"eventId": w.event, "kind": "logo"}, "logo.png", png)
	require.Empty(t, r.Errors, r.Raw)
	ev := r.Data["uploadEventImage"].(map[string]any)
	require.NotNil(t, ev["logoKey"])
	require.Nil(t, ev["backgroundKey"])
	rec = w.download(str(ev, "logoDownloadUrl"), "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, png, rec.Body.Bytes())
	got := w.must(http.StatusOK, http.MethodGet, w.base, w.acme, nil).Obj()
	require.Equal(t, ev["logoUrl"], got["logoUrl"])
	require.Equal(t, ev["logoKey"], got["logoKey"])

	rm := w.gqlOK(w.acme, `mutation($eventId: ID!) { removeEventImage(eventId: $eventId, kind: logo) { logoUrl logoKey } }`,
		map[string]any{"eventId": w.event})["removeEventImage"].(map[string]any)
	require.Nil(t, rm["logoKey"])
	require.Nil(t, rm["logoUrl"])
	w.eventually(func() bool { return len(w.objects()) == 1 }, "the removed logo is deleted; the headshot stays")
}

// TestFileSweep: the periodic sweep deletes objects no row points at once they are a day old, and
// keeps the others.
func TestFileSweep(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	r := w.upload(w.acme, attachQ, w.attachVars(), "kept.pdf", pdf(100))
	require.Empty(t, r.Errors, r.Raw)
	kept := str(r.Data["attachResourceFile"].(map[string]any), "fileStorageKey")
	orphan := files.NewKey(w.acmeOrg)
	require.NoError(t, w.store.Put(context.Background(), orphan, bytes.NewReader(pdf(10)), 10, "application/pdf"))

	sweep := func(at time.Time) {
		worker := &jobs.SweepFilesWorker{Pool: w.db.Pool, Files: w.store, Now: func() time.Time { return at }}
		require.NoError(t, worker.Work(context.Background(), nil))
	}
	sweep(time.Now())
	require.ElementsMatch(t, []string{kept, orphan}, w.objects(), "young objects stay")
	sweep(time.Now().Add(25 * time.Hour))
	require.Equal(t, []string{kept}, w.objects(), "the day-old orphan goes, the referenced file stays")
}
