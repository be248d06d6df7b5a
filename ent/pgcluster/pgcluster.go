// Package pgcluster runs a private PostgreSQL cluster from the machine's own
// PostgreSQL server binaries, so podium needs no separately managed database.
//
// It serves two callers:
//   - `podium serve` without DATABASE_URL keeps a persistent cluster under
//     ./.podium/ whose data survives restarts; a server still running from an
//     earlier process is reused instead of being started twice.
//   - Tests with no reachable server start a throwaway, fsync-free cluster in
//     a temp dir and Remove it afterwards.
//
// The server listens only on a unix socket in a directory of its own, never
// on TCP, so it cannot collide with a system PostgreSQL on port 5432 or in
// /var/run/postgresql. PostgreSQL refuses to run as root, so when the caller
// is root the server and its tools run as the "postgres" OS user (or
// "nobody"), and the directories they need are handed over to that user.
package pgcluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

const (
	defaultPort = 5433
	// waitSeconds bounds pg_ctl -w for start and stop.
	waitSeconds = "30"
	// superuser is the role initdb creates and every client connects as.
	superuser = "postgres"
	// maxSocketPath keeps the socket path well below the kernel's 108-byte
	// sun_path limit (PostgreSQL also appends ".lock" for its lock file).
	maxSocketPath = 100
)

// Options configures Start.
type Options struct {
	// Dir holds the cluster: Dir/pgdata (data), Dir/postgres.log (server log).
	// Created if missing. Relative paths are resolved against the working
	// directory once, at Start.
	Dir string
	// Port names the unix socket (.s.PGSQL.<Port>); 0 means 5433. No TCP
	// listener is opened, so the number only has to be unique per socket dir.
	Port int
	// Ephemeral tunes for throwaway test clusters: initdb --no-sync, and the
	// server runs with fsync=off, synchronous_commit=off,
	// full_page_writes=off. A crash of an ephemeral cluster can corrupt it.
	Ephemeral bool
	// Database, when set, is created (if missing) after start, owned by
	// superuser "postgres".
	Database string
}

// Cluster is a running private cluster. Its methods are safe for concurrent
// use.
type Cluster struct {
	dir     string // absolute Options.Dir
	dataDir string
	logFile string
	sockDir string
	port    int
	binDir  string
	as      runner

	ephemeral bool // Options.Ephemeral, for Restart

	mu    sync.Mutex
	owned bool // this Cluster started the server and must stop it
}

// Start initializes Dir/pgdata on first use, then starts the server with
// pg_ctl -w unless a server from the same data directory is already running;
// such a server is reused and Stop leaves it alone, so a second podium process
// (or a second Start in one process) never fights over the data directory.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	c, err := start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: start: %w", err)
	}
	return c, nil
}

func start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Dir == "" {
		return nil, errors.New("Options.Dir is empty")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	port := opts.Port
	if port == 0 {
		port = defaultPort
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("port %d out of range", port)
	}
	bin, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	as, err := serverUser()
	if err != nil {
		return nil, err
	}
	as.dir = dir
	c := &Cluster{
		dir:       dir,
		dataDir:   filepath.Join(dir, "pgdata"),
		logFile:   filepath.Join(dir, "postgres.log"),
		sockDir:   socketDir(dir, port),
		port:      port,
		binDir:    bin,
		as:        as,
		ephemeral: opts.Ephemeral,
	}
	if err := c.prepare(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx, opts.Ephemeral); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	running, err := c.running(ctx)
	if err != nil {
		return nil, err
	}
	if running {
		c.adopt()
	} else {
		if err := c.startServer(ctx, opts.Ephemeral); err != nil {
			return nil, err
		}
		c.owned = true
	}
	if opts.Database != "" {
		if err := c.createDB(ctx, opts.Database); err != nil {
			if c.owned {
				_ = c.Stop(context.WithoutCancel(ctx))
			}
			return nil, err
		}
	}
	return c, nil
}

// URL returns a libpq/pgx connection URL for database dbname on this cluster,
// user postgres, with the socket directory as host. Trust auth means no
// password; sslmode=disable because unix sockets never use TLS.
func (c *Cluster) URL(dbname string) string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable",
		superuser, url.PathEscape(dbname), url.QueryEscape(c.sockDir), c.port)
}

// SocketDir returns the directory holding the unix socket; it is not always
// under Dir because socket paths are limited to ~107 bytes.
func (c *Cluster) SocketDir() string { return c.sockDir }

// Stop stops the server (pg_ctl stop -m fast -w) if this Cluster started it;
// a no-op otherwise, so reusing a running server never shuts it down under
// its owner. Fast mode aborts open sessions but checkpoints, so no data is
// lost.
func (c *Cluster) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.owned {
		return nil
	}
	if _, err := c.as.run(ctx, c.bin("pg_ctl"), "stop", "-D", c.dataDir, "-m", "fast", "-w", "-t", waitSeconds, "-s"); err != nil {
		if up, serr := c.running(ctx); serr != nil || up {
			return fmt.Errorf("pgcluster: stop: %w%s", err, c.logTail())
		}
	}
	c.owned = false
	return nil
}

// Restart stops the server this Cluster started with pg_ctl's shutdown mode ("smart", "fast" or
// "immediate"), waits down for the outage to last, then starts it again — the faults the
// reliability tests put Podium through. Immediate mode is a crash as far as PostgreSQL can tell:
// the next start recovers from the WAL, which keeps every commit it acknowledged unless the
// cluster is Ephemeral (synchronous_commit=off). down receives the moment the server is down.
func (c *Cluster) Restart(ctx context.Context, mode string, down func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.owned {
		return errors.New("pgcluster: restart: this Cluster did not start the server")
	}
	if _, err := c.as.run(ctx, c.bin("pg_ctl"), "stop", "-D", c.dataDir, "-m", mode, "-w", "-t", waitSeconds, "-s"); err != nil {
		return fmt.Errorf("pgcluster: restart: stop (%s): %w%s", mode, err, c.logTail())
	}
	if down != nil {
		down()
	}
	if err := c.startServer(ctx, c.ephemeral); err != nil {
		return fmt.Errorf("pgcluster: restart: start: %w", err)
	}
	return nil
}

// Remove stops the server if owned and deletes Dir entirely (and the socket
// dir if it lives elsewhere). It refuses while another process's server is
// still running from Dir, because deleting a live data directory corrupts
// that server rather than stopping it.
func (c *Cluster) Remove(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		return fmt.Errorf("pgcluster: remove: %w", err)
	}
	up, err := c.running(ctx)
	if err != nil {
		return fmt.Errorf("pgcluster: remove: %w", err)
	}
	if up {
		return fmt.Errorf("pgcluster: remove: a server this Cluster did not start is still running from %s", c.dataDir)
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("pgcluster: remove: %w", err)
	}
	if !strings.HasPrefix(c.sockDir, c.dir+string(filepath.Separator)) {
		if err := os.RemoveAll(c.sockDir); err != nil {
			return fmt.Errorf("pgcluster: remove: %w", err)
		}
	}
	return nil
}

// FindBinaries returns the bin directory holding initdb, pg_ctl and postgres:
// $PG_BINDIR if set, else `pg_config --bindir` if that directory holds them
// (Debian's pg_config may belong to the client-only package), else the
// highest version under /usr/lib/postgresql/*/bin, else /usr/local/pgsql/bin.
func FindBinaries() (string, error) {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		if !hasServerBins(d) {
			return "", fmt.Errorf("pgcluster: PG_BINDIR=%s does not hold initdb, pg_ctl and postgres", d)
		}
		return d, nil
	}
	var looked []string
	// FindBinaries takes no context: pg_config prints one line and exits.
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil { //nolint:noctx // see above
		d := strings.TrimSpace(string(out))
		if hasServerBins(d) {
			return d, nil
		}
		looked = append(looked, d+" (from pg_config --bindir)")
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionLess(dirs[j], dirs[i]) })
	dirs = append(dirs, "/usr/local/pgsql/bin")
	for _, d := range dirs {
		if hasServerBins(d) {
			return d, nil
		}
	}
	looked = append(looked, "/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin")
	return "", fmt.Errorf("pgcluster: no PostgreSQL server binaries (initdb, pg_ctl, postgres) found (looked in %s); install Debian's postgresql package or set PG_BINDIR",
		strings.Join(looked, ", "))
}

func hasServerBins(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if !isExecutable(filepath.Join(dir, name)) {
			return false
		}
	}
	return true
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// versionLess orders /usr/lib/postgresql/<version>/bin paths numerically, so
// that 15 sorts above 9.6.
func versionLess(a, b string) bool {
	pa := strings.Split(filepath.Base(filepath.Dir(a)), ".")
	pb := strings.Split(filepath.Base(filepath.Dir(b)), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, _ := strconv.Atoi(pa[i])
		nb, _ := strconv.Atoi(pb[i])
		if na != nb {
			return na < nb
		}
	}
	return len(pa) < len(pb)
}

// socketDir picks Dir/run when the socket path fits, else a per-Dir directory
// under os.TempDir(); the hash of the absolute Dir keeps clusters in different
// Dirs apart even when they share a port.
func socketDir(dir string, port int) string {
	d := filepath.Join(dir, "run")
	if len(filepath.Join(d, ".s.PGSQL."+strconv.Itoa(port))) < maxSocketPath {
		return d
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(os.TempDir(), "podium-pg-"+hex.EncodeToString(sum[:4]))
}

func (c *Cluster) bin(name string) string { return filepath.Join(c.binDir, name) }

// prepare creates Dir, pgdata, the socket dir and the log file, owned by the
// server user, and checks that the server user can reach them.
func (c *Cluster) prepare() error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if c.as.cred != nil {
		if err := c.as.checkReach(filepath.Dir(c.dir)); err != nil {
			return err
		}
		// Dir is ours: let the server user traverse it (t.TempDir is 0700).
		if fi, err := os.Stat(c.dir); err != nil {
			return err
		} else if !c.as.canSearch(fi) {
			if err := os.Chmod(c.dir, fi.Mode().Perm()|0o001); err != nil {
				return err
			}
		}
	}
	if err := c.ownedDir(c.dataDir); err != nil {
		return err
	}
	if !strings.HasPrefix(c.sockDir, c.dir+string(filepath.Separator)) && c.as.cred != nil {
		if err := c.as.checkReach(filepath.Dir(c.sockDir)); err != nil {
			return err
		}
	}
	if err := c.ownedDir(c.sockDir); err != nil {
		return err
	}
	f, err := os.OpenFile(c.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if c.as.cred != nil {
		err = f.Chown(int(c.as.cred.Uid), int(c.as.cred.Gid))
	}
	return errors.Join(err, f.Close())
}

// ownedDir creates dir with mode 0700 for the server user, or checks that an
// existing one belongs to it: PostgreSQL rejects data directories owned by
// anyone else, and a foreign socket dir in /tmp could be a trap.
func (c *Cluster) ownedDir(dir string) error {
	uid := os.Geteuid()
	if c.as.cred != nil {
		uid = int(c.as.cred.Uid)
	}
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		if c.as.cred != nil {
			return os.Chown(dir, uid, int(c.as.cred.Gid))
		}
		return nil
	}
	if !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	if owner := int(fi.Sys().(*syscall.Stat_t).Uid); owner != uid {
		return fmt.Errorf("%s is owned by uid %d, but the server runs as %s (uid %d); chown -R it or remove it",
			dir, owner, c.as.name, uid)
	}
	return nil
}

func (c *Cluster) initdb(ctx context.Context, ephemeral bool) error {
	args := []string{"-D", c.dataDir, "-A", "trust", "-U", superuser, "-E", "UTF8"}
	if ephemeral {
		args = append(args, "--no-sync")
	}
	// C.UTF-8 gives Unicode-aware upper()/lower(); fall back to C where the
	// libc lacks it. initdb empties the data dir on failure, so retrying is safe.
	_, err := c.as.run(ctx, c.bin("initdb"), append(args, "--locale=C.UTF-8")...)
	if err != nil && strings.Contains(err.Error(), "locale") {
		_, err = c.as.run(ctx, c.bin("initdb"), append(args, "--locale=C")...)
	}
	return err
}

// running reports whether a server from the data directory is alive, using
// pg_ctl status, which ignores a stale postmaster.pid left by a crash.
func (c *Cluster) running(ctx context.Context) (bool, error) {
	_, err := c.as.run(ctx, c.bin("pg_ctl"), "status", "-D", c.dataDir)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && (ee.ExitCode() == 3 || ee.ExitCode() == 4): // not running / no data dir
		return false, nil
	}
	return false, err
}

// adopt takes the port and socket dir from postmaster.pid, since a server
// reused from an earlier run may have been started with other Options.
func (c *Cluster) adopt() {
	b, err := os.ReadFile(filepath.Join(c.dataDir, "postmaster.pid"))
	if err != nil {
		return
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 {
		return
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	sock := strings.TrimSpace(lines[4])
	if err == nil && sock != "" {
		c.port, c.sockDir = port, sock
	}
}

func (c *Cluster) startServer(ctx context.Context, ephemeral bool) error {
	// pg_ctl hands -o to /bin/sh, so every value is shell-quoted. Settings go on
	// the command line, not into postgresql.conf, so changes here reach
	// existing persistent clusters on their next start.
	o := []string{"-c", "listen_addresses=''", "-k", shellQuote(c.sockDir), "-p", strconv.Itoa(c.port)}
	if ephemeral {
		o = append(o, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	_, err := c.as.run(ctx, c.bin("pg_ctl"), "start", "-D", c.dataDir, "-l", c.logFile,
		"-w", "-t", waitSeconds, "-s", "-o", strings.Join(o, " "))
	if err != nil {
		return fmt.Errorf("%w%s", err, c.logTail())
	}
	return nil
}

// createDB creates name unless it exists. There is no Go driver to connect
// with, so it uses psql (to look first, keeping "already exists" errors out of
// the server log) and createdb from the same bin dir.
func (c *Cluster) createDB(ctx context.Context, name string) error {
	conn := []string{"-h", c.sockDir, "-p", strconv.Itoa(c.port), "-U", superuser}
	if psql := c.bin("psql"); isExecutable(psql) {
		q := "select 1 from pg_database where datname = " + quoteLiteral(name)
		out, err := c.as.run(ctx, psql, append(conn, "-X", "-d", "postgres", "-Atc", q)...)
		if err == nil && strings.TrimSpace(out) == "1" {
			return nil
		}
	}
	_, err := c.as.run(ctx, c.bin("createdb"), append(conn, "--", name)...)
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

func (c *Cluster) logTail() string {
	b, err := os.ReadFile(c.logFile)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return "\n" + c.logFile + ":\n" + tail(b)
}

// runner runs PostgreSQL programs as the server user.
type runner struct {
	cred   *syscall.Credential // nil: run as ourselves
	name   string
	home   string
	dir    string // working directory, reachable by the server user
	groups []uint32
}

// serverUser picks who runs the server: ourselves, or when root (which initdb
// and postgres refuse) the "postgres" user, else "nobody".
func serverUser() (runner, error) {
	if os.Geteuid() != 0 {
		return runner{}, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return runner{}, fmt.Errorf("running as root, but neither OS user postgres nor nobody exists to run the server as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return runner{}, fmt.Errorf("user %s: %w", u.Username, err)
	}
	r := runner{name: u.Username, home: u.HomeDir}
	// exec drops supplementary groups unless listed, so list them to match
	// what canSearch assumes.
	gids, _ := u.GroupIds()
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			r.groups = append(r.groups, uint32(n))
		}
	}
	r.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: r.groups}
	return r, nil
}

// run runs bin and returns its stdout; a failure carries the tail of its
// output so callers can show what PostgreSQL complained about.
func (r runner) run(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = r.dir
	cmd.Env = r.env()
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		name := filepath.Base(bin)
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			name += " " + args[0]
		}
		if r.cred != nil {
			name += " (as " + r.name + ")"
		}
		out := append(stderr.Bytes(), stdout.Bytes()...)
		return stdout.String(), &cmdError{cmd: name, err: err, out: tail(out)}
	}
	return stdout.String(), nil
}

// env drops PG* variables so the caller's libpq settings (PGHOST, PGOPTIONS,
// ...) cannot redirect or alter our commands, and points HOME at the server
// user's home.
func (r runner) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || (r.cred != nil && (strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "USER=") || strings.HasPrefix(kv, "LOGNAME="))) {
			continue
		}
		env = append(env, kv)
	}
	if r.cred != nil {
		env = append(env, "HOME="+r.home, "USER="+r.name, "LOGNAME="+r.name)
	}
	return env
}

// checkReach fails, naming the blocking directory, when the server user cannot
// traverse every directory from / down to dir; postgres would otherwise fail
// later with a bare "Permission denied".
func (r runner) checkReach(dir string) error {
	var chain []string
	for p := dir; ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if p == filepath.Dir(p) {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fi, err := os.Stat(chain[i])
		if err != nil {
			return err
		}
		if !r.canSearch(fi) {
			st := fi.Sys().(*syscall.Stat_t)
			return fmt.Errorf("server user %s (uid %d) cannot reach %s: %s is not searchable (mode %v, owner uid %d, gid %d); run chmod o+x %s or choose another Dir",
				r.name, r.cred.Uid, dir, chain[i], fi.Mode().Perm(), st.Uid, st.Gid, chain[i])
		}
	}
	return nil
}

func (r runner) canSearch(fi os.FileInfo) bool {
	st := fi.Sys().(*syscall.Stat_t)
	perm := fi.Mode().Perm()
	if st.Uid == r.cred.Uid {
		return perm&0o100 != 0
	}
	if st.Gid == r.cred.Gid {
		return perm&0o010 != 0
	}
	for _, g := range r.groups {
		if st.Gid == g {
			return perm&0o010 != 0
		}
	}
	return perm&0o001 != 0
}

type cmdError struct {
	cmd string
	err error
	out string
}

func (e *cmdError) Error() string {
	if e.out == "" {
		return e.cmd + ": " + e.err.Error()
	}
	return e.cmd + ": " + e.err.Error() + "\n" + e.out
}

func (e *cmdError) Unwrap() error { return e.err }

// tail returns the last 20 lines of b, at most 2 KiB.
func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
