//go:build e2e

package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserFileUpload picks a file in a real file input of headless Chromium and uploads it as
// the browser encodes it — FormData, the GraphQL multipart request — to attachResourceFile, then
// downloads it twice, over REST with the key and in the browser through the signed URL GraphQL
// gives, both byte-identical to the file on disk. Unit tests write their multipart bodies with
// Go's encoder; this one checks that the transport reads what a browser sends.
func TestBrowserFileUpload(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t, "PODIUM_DATA_DIR="+t.TempDir())
	key := srv.createKey(t, "Upload Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	eventID := createE2EEvent(t, api, "Upload Check")
	resource := api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/resources", map[string]any{
		"title": "Venue map", "subtitle": "", "body": "", "published": true, "audienceMode": "all",
		"attachmentKind": nil, "linkUrl": nil, "embedUrl": nil, "trackIds": []any{}, "contactIds": []any{}})

	content := make([]byte, 3<<20)
	_, _ = rand.Read(content)
	copy(content, "%PDF-1.7\n")
	path := filepath.Join(t.TempDir(), "Venue map (v2).pdf")
	require.NoError(t, os.WriteFile(path, content, 0o600))
	sum := sha256.Sum256(content)

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	run(t, ctx, "open a page of the server", chromedp.Navigate(srv.url+"/graphql"),
		chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const i = document.createElement("input"); i.type = "file"; i.id = "podium-upload";
			document.body.appendChild(i); return true; })()`, nil))
	run(t, ctx, "choose the file", chromedp.SetUploadFiles(`#podium-upload`, []string{path}, chromedp.ByID))

	operations, _ := json.Marshal(map[string]any{
		"query": `mutation($eventId: ID!, $resourceId: ID!, $file: Upload) {
			attachResourceFile(eventId: $eventId, resourceId: $resourceId, file: $file) {
				fileName fileSize fileContentType fileStorageKey fileDownloadUrl } }`,
		"variables": map[string]any{"eventId": eventID, "resourceId": resource["id"], "file": nil}})
	var answer string
	run(t, ctx, "upload it with fetch and FormData", chromedp.Evaluate(`(async () => {
		const form = new FormData();
		form.append("operations", `+string(mustJSON(string(operations)))+`);
		form.append("map", JSON.stringify({"0": ["variables.file"]}));
		form.append("0", document.getElementById("podium-upload").files[0]);
		const resp = await fetch("/graphql", {method: "POST", headers: {Authorization: "Bearer `+key+`"}, body: form});
		return resp.status + " " + await resp.text();
	})()`, &answer, awaitPromise))
	require.Regexp(t, `^200 `, answer)
	var out struct {
		Data struct {
			AttachResourceFile struct {
				FileName, FileContentType, FileStorageKey, FileDownloadURL string
				FileSize                                                   int64
			} `json:"attachResourceFile"`
		}
		Errors []any
	}
	require.NoError(t, json.Unmarshal([]byte(answer[4:]), &out), answer)
	require.Empty(t, out.Errors, answer)
	file := out.Data.AttachResourceFile
	require.Equal(t, "Venue map (v2).pdf", file.FileName)
	require.Equal(t, int64(len(content)), file.FileSize)
	require.Equal(t, "application/pdf", file.FileContentType)

	// REST, with the key.
	_, fileID, _ := strings.Cut(file.FileStorageKey, "/")
	req, err := http.NewRequest(http.MethodGet, api.base+"/events/"+eventID+"/files/"+fileID, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(got))
	require.Equal(t, sum, sha256.Sum256(got))

	// The browser, through the signed URL.
	var digest string
	run(t, ctx, "download it through the signed URL", chromedp.Evaluate(`(async () => {
		const resp = await fetch(`+string(mustJSON(file.FileDownloadURL))+`);
		const hash = await crypto.subtle.digest("SHA-256", await resp.arrayBuffer());
		return resp.status + " " + Array.from(new Uint8Array(hash)).map(b => b.toString(16).padStart(2, "0")).join("");
	})()`, &digest, awaitPromise))
	require.Equal(t, "200 "+hex.EncodeToString(sum[:]), digest)
	browser.requireLocal(t)
}

// awaitPromise has Evaluate wait for the promise an async expression returns.
func awaitPromise(p *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams {
	return p.WithAwaitPromise(true)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
