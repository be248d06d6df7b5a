package rest_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/files"
)

// TestFileUploadClientDisconnects: a client that goes away in the middle of an upload leaves
// nothing: no object, no row pointing anywhere, no spooled bytes.
func TestFileUploadClientDisconnects(t *testing.T) {
	t.Parallel()
	w := setupFiles(t, nil, 0)
	srv := httptest.NewServer(w.handler)
	t.Cleanup(srv.Close)

	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	ops, _ := json.Marshal(map[string]any{"query": attachQ, "variables": with(w.attachVars(), "file", nil)})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.file"]}`)
	_, _ = mw.CreateFormFile("0", "big.pdf")
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	_, err = fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: podium.test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: %s\r\nContent-Length: %d\r\n\r\n", w.acme, mw.FormDataContentType(), 40<<20)
	require.NoError(t, err)
	_, err = conn.Write(head.Bytes())
	require.NoError(t, err)
	_, err = conn.Write(pdf(2 << 20))
	require.NoError(t, err)
	// The server is spooling the file; the client goes away.
	w.eventually(func() bool { e, _ := os.ReadDir(w.tmp); return len(e) > 0 }, "the upload is being spooled")
	require.NoError(t, conn.Close())
	w.eventually(func() bool { e, _ := os.ReadDir(w.tmp); return len(e) == 0 }, "the spooled bytes are removed")
	require.Empty(t, w.objects())
	res := w.must(http.StatusOK, http.MethodGet, w.base+"/resources", w.acme, nil).List()[0].(map[string]any)
	require.Nil(t, res["fileStorageKey"])
}

// TestFileMemory uploads and downloads a 200 MiB file through a real HTTP server and requires the
// process's peak RSS to grow by less than 32 MiB: the bytes stream, they are never held whole.
// Client and server share the process, so the figure bounds both.
func TestFileMemory(t *testing.T) { testMemory(t, nil) }

func testMemory(t *testing.T, store files.Store) {
	if runtime.GOOS != "linux" {
		t.Fatal("the peak RSS is read from /proc (Linux)")
	}
	const size = 200 << 20
	w := setupFiles(t, store, 256<<20)
	srv := httptest.NewServer(w.handler)
	t.Cleanup(srv.Close)

	runtime.GC()
	debug.FreeOSMemory()
	require.NoError(t, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0), "reset the peak RSS")
	before := procStatus(t, "VmRSS")

	sent := sha256.New()
	content := io.TeeReader(io.MultiReader(strings.NewReader("%PDF-1.7\n"),
		io.LimitReader(rand.NewChaCha8([32]byte{1}), size-9)), sent)
	body, contentType := multipartBody(attachQ, w.attachVars(), "huge.pdf", content)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/graphql", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+w.acme)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var out gqlResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	_ = resp.Body.Close()
	require.Empty(t, out.Errors)
	uploadTook := time.Since(start)
	key := str(out.Data["attachResourceFile"].(map[string]any), "fileStorageKey")
	_, fileID, _ := files.ParseKey(key)

	start = time.Now()
	req, err = http.NewRequest(http.MethodGet, srv.URL+w.base+"/files/"+fileID, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.acme)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, strconv.Itoa(size), resp.Header.Get("Content-Length"))
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	downloadTook := time.Since(start)
	require.Equal(t, int64(size), n)
	require.Equal(t, sent.Sum(nil), got.Sum(nil), "the download differs from the upload")

	peak := procStatus(t, "VmHWM")
	grew := peak - before
	t.Logf("200 MiB on %s: upload %v, download %v; RSS before %d MiB, peak %d MiB, growth %d MiB",
		w.store.Name(), uploadTook.Round(time.Millisecond), downloadTook.Round(time.Millisecond), before>>20, peak>>20, grew>>20)
	require.Less(t, grew, int64(32<<20), "peak RSS grew by %d MiB", grew>>20)
}

// procStatus reads a size field of /proc/self/status, in bytes.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), ":")
		if ok && name == field {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
