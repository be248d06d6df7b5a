//go:build bench

package rest_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
)

// previousRelease is the commit of Podium's last release: make bench builds it, serves the same
// data set from its own database beside the current binary, and fails when a workload is more
// than releaseSlack slower than it (see releaseRegressions). Move it to the new commit when a
// release is cut. BENCH_RELEASE overrides it; BENCH_RELEASE=none runs without the baseline.
const previousRelease = "c9054c65a37ac5d5dd58de388c439a16e37c506d"

// releaseSlack is how much slower than the previous release a workload may be before make bench
// fails: run-to-run noise on a quiet machine stays within a few percent.
const releaseSlack = 1.10

// release is the previous release's server with its own seeded database.
type release struct {
	commit string
	srv    server
	vars   map[string]string
	key    string
}

// startRelease builds the previous release (cached by commit under ~/.cache/podium), seeds an
// empty database with the release's own `seed bench` (which applies the release's migrations), and
// starts its server. It returns nil when BENCH_RELEASE=none.
func startRelease(t *testing.T) *release {
	t.Helper()
	commit := previousRelease
	if v := os.Getenv("BENCH_RELEASE"); v != "" {
		commit = v
	}
	if commit == "none" {
		return nil
	}
	bin := buildRelease(t, commit)
	dbURL := pgtest.NewEmpty(t)
	seed := exec.Command(bin, "seed", "bench")
	seed.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	seed.Stderr = io.Discard
	out, err := seed.Output()
	require.NoError(t, err, "the release's seed bench")
	vars, key := parseSeed(t, string(out))
	t.Logf("release %.10s seeded: %s", commit, strings.SplitN(string(out), "\n", 2)[0])
	return &release{commit: commit, srv: startServer(t, bin, dbURL), vars: vars, key: key}
}

// buildRelease returns the podium binary of commit, building it from `git archive` of this
// repository into a temporary directory the first time.
func buildRelease(t *testing.T, commit string) string {
	t.Helper()
	full, err := exec.Command("git", "-C", "..", "rev-parse", "--verify", commit+"^{commit}").Output()
	require.NoError(t, err, "git rev-parse %s: the release must be in this repository's history", commit)
	commit = strings.TrimSpace(string(full))
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	bin := filepath.Join(home, ".cache", "podium", "release-"+commit, "podium")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	src := t.TempDir()
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C .. archive --format=tar %s | tar -x -C %s", commit, src))
	archive.Stderr = os.Stderr
	require.NoError(t, archive.Run(), "git archive %s", commit)
	build := exec.Command("go", "build", "-o", bin, "./cmd/podium")
	build.Dir, build.Stderr = src, os.Stderr
	build.Env = append(os.Environ(), "GOWORK=off")
	require.NoError(t, build.Run(), "build the release %s", commit)
	return bin
}

// releaseRatio records the release's figure of a workload: ratio_release is Podium's statistic
// over the release's (lower is better), and releaseStat names the statistic.
func (r *benchResult) releaseRatio(stat string, podium, rel float64) {
	r.releaseStat, r.release, r.hasRelease = stat, podium/rel, true
}

// releaseRegressions lists the workloads more than releaseSlack slower than the previous release.
func releaseRegressions(rs []benchResult) []string {
	var out []string
	for _, r := range rs {
		if r.hasRelease && r.release > releaseSlack {
			out = append(out, fmt.Sprintf("%s: %s %.2f× the release's (> %.2f×)", r.name, r.releaseStat, r.release, releaseSlack))
		}
	}
	return out
}
