// Package filestest starts a real S3-compatible server, MinIO, for tests of the S3 backend. MinIO
// is built once per machine from the Go module proxy into a cache directory (make minio); a test
// starts it on a free loopback port with a temporary data directory and stops it when it ends.
package filestest

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podium/podium/graph/files"
)

// MinIOVersion is the MinIO module version Podium tests against (a pseudo-version the module
// proxy serves; MinIO publishes no module tags).
const MinIOVersion = "v0.0.0-20260212201848-7aac2a2c5b7c"

// MinIOBinary is where make minio puts the server: $PODIUM_MINIO, else
// $HOME/.cache/podium/minio-<version>/minio.
func MinIOBinary() string {
	if p := os.Getenv("PODIUM_MINIO"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "podium", "minio-"+MinIOVersion, "minio")
}

// MinIO starts a MinIO server for the test and returns the configuration of a fresh bucket on it.
// A missing binary fails the test with what to run: it never skips.
func MinIO(t testing.TB) files.S3Config {
	t.Helper()
	bin := MinIOBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("MinIO is not built at %s: run `make minio` once on this machine (it builds github.com/minio/minio@%s from the module proxy)", bin, MinIOVersion)
	}
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	console := "127.0.0.1:" + strconv.Itoa(freePort(t))
	const user, password = "podium-test", "podium-test-secret"
	ctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "server", "--quiet", "--address", addr, "--console-address", console, t.TempDir())
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+user, "MINIO_ROOT_PASSWORD="+password,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start MinIO: %v", err)
	}
	t.Cleanup(func() {
		stop() // kills the server
		_ = cmd.Wait()
	})
	endpoint := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/minio/health/live", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("MinIO did not start within a minute: %s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return files.S3Config{Endpoint: endpoint, Bucket: "podium-files", Region: "us-east-1",
		AccessKey: user, SecretKey: password, PathStyle: true}
}

// NewS3 starts MinIO and returns the S3 store on it.
func NewS3(t testing.TB) *files.S3 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := files.NewS3(ctx, MinIO(t))
	if err != nil {
		t.Fatalf("S3 store on MinIO: %v", err)
	}
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// Count returns how many objects store holds.
func Count(t testing.TB, store files.Store) int {
	t.Helper()
	n := 0
	if err := store.List(context.Background(), func(string, time.Time) error { n++; return nil }); err != nil {
		t.Fatalf("list: %v", err)
	}
	return n
}

// Keys returns the keys store holds.
func Keys(t testing.TB, store files.Store) []string {
	t.Helper()
	var keys []string
	if err := store.List(context.Background(), func(k string, _ time.Time) error { keys = append(keys, k); return nil }); err != nil {
		t.Fatalf("list: %v", err)
	}
	return keys
}
