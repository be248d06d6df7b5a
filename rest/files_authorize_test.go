package rest_test

import (
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
)

// heldUpload is a multipart upload whose body stops after its operations and map parts (and,
// when part is set, after that many bytes of its file) until released.
type heldUpload struct {
	req     *http.Request
	release func()
}

func newHeldUpload(t *testing.T, query string, vars map[string]any, part int) heldUpload {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	vars = clone(vars)
	vars["file"] = nil
	done := make(chan struct{})
	go func() {
		ops, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		_ = mw.WriteField("operations", string(ops))
		_ = mw.WriteField("map", `{"0":["variables.file"]}`)
		if part > 0 {
			fw, _ := mw.CreateFormFile("0", "slides.pdf")
			_, _ = fw.Write(pdf(part))
		}
		<-done
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	req := httptest.NewRequest(http.MethodPost, "/graphql", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	closed := false
	release := func() {
		if !closed {
			closed = true
			close(done)
		}
	}
	t.Cleanup(release)
	return heldUpload{req: req, release: release}
}

// TestUploadAuthorizedBeforeItsBody checks that a multipart upload is judged before its files are
// read: a caller whose role may not run the mutation is refused while the body is still held
// open, and nothing is spooled; and that a caller's uploads in flight are bounded, the one over
// the bound answered 429 rate_limited at once.
func TestUploadAuthorizedBeforeItsBody(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)

	t.Run("RefusedBeforeTheFile", func(t *testing.T) {
		w.addMember(w.acmeOrg, "reader@example.test", organizationmember.RoleMember)
		cookie := w.signIn("reader@example.test")
		up := newHeldUpload(t, attachQ, w.attachVars(), 0)
		up.req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		answered := make(chan response, 1)
		go func() { answered <- w.send(up.req) }()
		select {
		case r := <-answered:
			out := gqlResponse{Status: r.Status, Raw: r.Raw}
			require.NoError(t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
			require.Equal(t, []string{"forbidden"}, out.Codes(), r.Raw)
		case <-time.After(20 * time.Second):
			require.Fail(t, "the upload was not refused before its file was sent")
		}
		w.noSpooledUploads()
	})

	t.Run("ConcurrentUploadsBounded", func(t *testing.T) {
		key := w.acme
		var held []heldUpload
		answers := make(chan response, 2)
		for range 2 {
			up := newHeldUpload(t, attachQ, w.attachVars(), 4096)
			up.req.Header.Set("Authorization", "Bearer "+key)
			held = append(held, up)
			go func() { answers <- w.send(up.req) }()
		}
		w.eventually(func() bool {
			entries, err := os.ReadDir(w.tmp)
			return err == nil && len(entries) == 2
		}, "two uploads spooling")
		r := w.upload(key, attachQ, w.attachVars(), "third.pdf", pdf(1000))
		require.Equal(t, http.StatusTooManyRequests, r.Status, r.Raw)
		require.Equal(t, []string{"rate_limited"}, r.Codes(), r.Raw)
		for _, up := range held {
			up.release()
		}
		for range 2 {
			<-answers
		}
		w.eventually(func() bool {
			entries, err := os.ReadDir(w.tmp)
			return err == nil && len(entries) == 0
		}, "the held uploads cleaned up")
		r = w.upload(key, attachQ, w.attachVars(), "fourth.pdf", pdf(1000))
		require.Empty(t, r.Errors, r.Raw)
	})
}

// Upload mutations named by the object they change, for TestUploadTargetAuthorizedBeforeItsBody.
const (
	eventImageQ = `mutation($eventId: ID!, $file: Upload) { uploadEventImage(eventId: $eventId, kind: logo, file: $file) { id } }`
	headshotQ   = `mutation($eventId: ID!, $contactId: ID!, $file: Upload) {
		uploadSpeakerHeadshot(eventId: $eventId, contactId: $contactId, file: $file) { id } }`
	deliverableQ = `mutation($eventId: ID!, $sessionId: ID!, $deliverableId: ID!, $file: Upload) {
		uploadDeliverable(eventId: $eventId, sessionId: $sessionId, deliverableId: $deliverableId, file: $file) { id } }`
	myDeliverableQ = `mutation($id: ID!, $file: Upload) { uploadMyDeliverable(id: $id, file: $file) { id } }`
	myHeadshotQ    = `mutation($contactId: ID!, $file: Upload) { uploadMyHeadshot(contactId: $contactId, file: $file) { contactId } }`
)

// TestUploadTargetAuthorizedBeforeItsBody: an upload that names an object its caller may not
// change — another organization's event, resource, speaker or deliverable, a resource of another
// event, another speaker's deliverable or profile — is refused with the code the operation
// itself gives, while its body is still held open after the first bytes of its file, and
// nothing is spooled. The caller's role may run each of these mutations; only the object is
// not theirs.
func TestUploadTargetAuthorizedBeforeItsBody(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 0)
	other := str(w.createEvent(w.acme, "Elsewhere"), "id")
	deliverable := map[string]any{"eventId": w.event, "sessionId": w.sessID, "deliverableId": w.deliverable}
	for name, c := range map[string]struct {
		key, cookie, query string
		vars               map[string]any
		code               string
	}{
		"OtherOrganizationsResource":    {key: w.globex, query: attachQ, vars: w.attachVars(), code: "forbidden"},
		"ResourceOfAnotherEvent":        {key: w.acme, query: attachQ, vars: map[string]any{"eventId": other, "resourceId": w.resource}, code: "not_found"},
		"OtherOrganizationsEventImage":  {key: w.globex, query: eventImageQ, vars: map[string]any{"eventId": w.event}, code: "forbidden"},
		"OtherOrganizationsHeadshot":    {key: w.globex, query: headshotQ, vars: map[string]any{"eventId": w.event, "contactId": w.contact}, code: "forbidden"},
		"SpeakerOfAnotherEvent":         {key: w.acme, query: headshotQ, vars: map[string]any{"eventId": other, "contactId": w.contact}, code: "not_found"},
		"OtherOrganizationsDeliverable": {key: w.globex, query: deliverableQ, vars: deliverable, code: "forbidden"},
		"AnotherSpeakersDeliverable":    {cookie: w.grace, query: myDeliverableQ, vars: map[string]any{"id": w.deliverable}, code: "not_found"},
		"AnotherSpeakersProfile":        {cookie: w.grace, query: myHeadshotQ, vars: map[string]any{"contactId": w.contact}, code: "not_found"},
	} {
		t.Run(name, func(t *testing.T) {
			up := newHeldUpload(t, c.query, c.vars, 4096)
			if c.key != "" {
				up.req.Header.Set("Authorization", "Bearer "+c.key)
			} else {
				up.req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c.cookie})
			}
			answered := make(chan response, 1)
			go func() { answered <- w.send(up.req) }()
			select {
			case r := <-answered:
				out := gqlResponse{Status: r.Status, Raw: r.Raw}
				require.NoError(t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
				require.Equal(t, []string{c.code}, out.Codes(), r.Raw)
			case <-time.After(10 * time.Second):
				up.release()
				require.Fail(t, "the upload was not refused before its file was read")
			}
			w.noSpooledUploads()
		})
	}
}
