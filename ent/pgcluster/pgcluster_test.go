package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testDir returns a fresh directory under t.TempDir. Its parent is created
// 0700, which the unprivileged server user could not traverse when tests run
// as root.
func testDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(d), 0o711))
	return d
}

func mustStart(t *testing.T, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := FindBinaries()
	require.NoError(t, err, "these tests need PostgreSQL server binaries; install Debian's postgresql package or set PG_BINDIR")
	t0 := time.Now()
	c, err := Start(ctx, opts)
	require.NoError(t, err)
	t.Logf("Start(%s) took %v (owned=%v)", opts.Dir, time.Since(t0).Round(time.Millisecond), c.owned)
	return c
}

// psql runs a query on c the way a client would, as the server user when root.
func psql(c *Cluster, db, sql string) (string, error) {
	out, err := c.as.run(context.Background(), c.bin("psql"), "-X", "-h", c.SocketDir(),
		"-p", strconv.Itoa(c.port), "-U", "postgres", "-d", db, "-Atc", sql)
	return strings.TrimSpace(out), err
}

func requirePSQL(t *testing.T, c *Cluster, db, sql, want string) {
	t.Helper()
	out, err := psql(c, db, sql)
	require.NoError(t, err)
	require.Equal(t, want, out)
}

func TestFindBinaries(t *testing.T) {
	bin, err := FindBinaries()
	require.NoError(t, err, "install Debian's postgresql package or set PG_BINDIR")
	require.True(t, hasServerBins(bin), bin)

	t.Setenv("PG_BINDIR", t.TempDir())
	_, err = FindBinaries()
	require.ErrorContains(t, err, "PG_BINDIR=")

	t.Setenv("PG_BINDIR", bin)
	got, err := FindBinaries()
	require.NoError(t, err)
	require.Equal(t, bin, got)
}

func TestVersionLess(t *testing.T) {
	t.Parallel()
	require.True(t, versionLess("/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin"))
	require.False(t, versionLess("/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"))
}

func TestSocketDir(t *testing.T) {
	t.Parallel()
	require.Equal(t, "/srv/app/.podium/run", socketDir("/srv/app/.podium", 5433))

	long := "/" + strings.Repeat("x", 90)
	a, b := socketDir(long+"/a", 5433), socketDir(long+"/b", 5433)
	require.True(t, strings.HasPrefix(a, filepath.Join(os.TempDir(), "podium-pg-")), a)
	require.NotEqual(t, a, b, "clusters in different Dirs must not share a socket dir")
	require.Equal(t, a, socketDir(long+"/a", 5433), "socket dir must be stable across runs")
}

func TestURL(t *testing.T) {
	t.Parallel()
	c := &Cluster{sockDir: "/tmp/my sock", port: 5433}
	require.Equal(t, "postgres://postgres@/app?host=%2Ftmp%2Fmy+sock&port=5433&sslmode=disable", c.URL("app"))
}

// TestPersistentLifecycle follows `podium serve`: start, reuse while running,
// stop, restart with the data intact, then Remove.
func TestPersistentLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(testDir(t), ".podium")

	c := mustStart(t, Options{Dir: dir, Database: "app"})
	t.Cleanup(func() { _ = c.Stop(ctx) })
	require.True(t, c.owned)
	require.Equal(t, filepath.Join(dir, "run"), c.SocketDir())
	require.FileExists(t, filepath.Join(dir, "postgres.log"))
	requirePSQL(t, c, "app", "select 1", "1")
	requirePSQL(t, c, "postgres", "select pg_get_userbyid(datdba) from pg_database where datname = 'app'", "postgres")
	requirePSQL(t, c, "app", "show listen_addresses", "")
	requirePSQL(t, c, "app", "show fsync", "on")
	requirePSQL(t, c, "app", "create table kept (v text); insert into kept values ('survives')", "CREATE TABLE\nINSERT 0 1")

	// Psql via the URL proves the URL itself is usable by libpq.
	out, err := c.as.run(ctx, c.bin("psql"), "-X", "-Atc", "select current_database()", c.URL("app"))
	require.NoError(t, err)
	require.Equal(t, "app", strings.TrimSpace(out))

	// A second Start (other port, existing database) reuses the running
	// server, and its Stop must leave that server up.
	again := mustStart(t, Options{Dir: dir, Port: 6543, Database: "app"})
	require.False(t, again.owned)
	require.Equal(t, c.URL("app"), again.URL("app"), "reused cluster must report the running server's socket")
	require.NoError(t, again.Stop(ctx))
	requirePSQL(t, c, "app", "select 1", "1")
	require.ErrorContains(t, again.Remove(ctx), "still running")
	require.DirExists(t, dir)

	require.NoError(t, c.Stop(ctx))
	require.NoError(t, c.Stop(ctx), "second Stop is a no-op")
	_, err = psql(c, "app", "select 1")
	require.Error(t, err, "server must be down after Stop")

	// A postmaster.pid left by a crash must not block the next start.
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	pid := fmt.Sprintf("%d\n%s\n0\n5433\n\n\n", dead.Process.Pid, filepath.Join(dir, "pgdata"))
	pidFile := filepath.Join(dir, "pgdata", "postmaster.pid")
	require.NoError(t, os.WriteFile(pidFile, []byte(pid), 0o600))
	if cred := c.as.cred; cred != nil {
		require.NoError(t, os.Chown(pidFile, int(cred.Uid), int(cred.Gid)))
	}

	c = mustStart(t, Options{Dir: dir, Database: "app"})
	require.True(t, c.owned)
	requirePSQL(t, c, "app", "select v from kept", "survives")

	require.NoError(t, c.Remove(ctx))
	require.NoDirExists(t, dir)
	require.NoError(t, c.Stop(ctx), "Stop after Remove is a no-op")
}

// TestEphemeralLongRelativeDir follows a test run: a throwaway cluster whose
// Dir is relative and too long for an in-Dir socket.
func TestEphemeralLongRelativeDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	abs := filepath.Join(testDir(t), strings.Repeat("long-directory-name-", 5))
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, abs)
	require.NoError(t, err)
	require.False(t, filepath.IsAbs(rel))

	c := mustStart(t, Options{Dir: rel, Port: 5499, Ephemeral: true, Database: "podium_test"})
	t.Cleanup(func() { _ = c.Remove(ctx) })
	require.True(t, c.owned)
	require.Equal(t, socketDir(abs, 5499), c.SocketDir())
	require.True(t, strings.HasPrefix(c.SocketDir(), filepath.Join(os.TempDir(), "podium-pg-")), c.SocketDir())
	require.FileExists(t, filepath.Join(c.SocketDir(), ".s.PGSQL.5499"))
	require.Contains(t, c.URL("podium_test"), "port=5499")
	requirePSQL(t, c, "podium_test", "select 1", "1")
	requirePSQL(t, c, "podium_test", "select current_setting('fsync') || current_setting('synchronous_commit') || current_setting('full_page_writes')", "offoffoff")

	require.NoError(t, c.Remove(ctx))
	require.NoDirExists(t, abs)
	require.NoDirExists(t, c.SocketDir())
}

func TestUnreachableDirIsReported(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another user")
	}
	blocked := filepath.Join(testDir(t), "blocked")
	require.NoError(t, os.Mkdir(blocked, 0o700))
	_, err := Start(context.Background(), Options{Dir: filepath.Join(blocked, "db")})
	require.ErrorContains(t, err, "cannot reach")
	require.ErrorContains(t, err, blocked+" is not searchable")
}

// Restart in fast and immediate modes: the server is down in between (down runs then), comes back
// on the same socket, and keeps what was committed — immediate mode through crash recovery.
func TestRestart(t *testing.T) {
	t.Parallel()
	c := mustStart(t, Options{Dir: testDir(t), Database: "app"})
	t.Cleanup(func() { _ = c.Remove(context.Background()) })
	requirePSQL(t, c, "app", "CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)", "CREATE TABLE\nINSERT 0 1")
	for i, mode := range []string{"fast", "immediate"} {
		wasDown := false
		require.NoError(t, c.Restart(context.Background(), mode, func() {
			_, err := psql(c, "app", "SELECT 1")
			wasDown = err != nil
		}))
		require.True(t, wasDown, "%s: the server answered while down", mode)
		requirePSQL(t, c, "app", "SELECT count(*) FROM kept", strconv.Itoa(i+1))
		requirePSQL(t, c, "app", "INSERT INTO kept VALUES (1)", "INSERT 0 1")
	}
}
