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
