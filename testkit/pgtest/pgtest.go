// Package pgtest runs a real PostgreSQL server for tests: initdb in a
// temporary directory, as an unprivileged user (nobody, when the tests
// run as root, which initdb refuses), postgres listening on a unix socket
// in that directory alone (no TCP port), a fresh database per test, and
// the server stopped and its directory removed when the package's tests
// end.
//
// One server serves a package's test run: its TestMain calls Run, and
// each test asks Database for a database of its own. Without PostgreSQL's
// binaries (initdb and postgres on PATH, or under /usr/lib/postgresql)
// Database skips the test, saying so; nothing else skips it. It owns the
// postgres process and its directory, nothing else.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoPostgres is Start's error when PostgreSQL's binaries are absent.
var ErrNoPostgres = errors.New("PostgreSQL's initdb and postgres are not installed (Debian: apt-get install postgresql)")

// superuser is the role initdb makes, which every test connects as.
const superuser = "troupe"

// readyWithin bounds a server's start: initdb and the first connection.
const readyWithin = 60 * time.Second

// Server is a running PostgreSQL.
type Server struct {
	dir  string // the data directory's parent, and the socket's directory
	cmd  *exec.Cmd
	done chan struct{} // closed when postgres exited
	dbs  atomic.Int64
}

// binaries finds initdb and postgres: on PATH, else the newest of
// /usr/lib/postgresql/*/bin (where Debian's package puts them).
func binaries() (initdb, postgres string, err error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if q := filepath.Join(filepath.Dir(p), "postgres"); executable(q) {
			return p, q, nil
		}
		if q, err := exec.LookPath("postgres"); err == nil {
			return p, q, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, d := range dirs {
		if executable(filepath.Join(d, "initdb")) && executable(filepath.Join(d, "postgres")) {
			return filepath.Join(d, "initdb"), filepath.Join(d, "postgres"), nil
		}
	}
	return "", "", ErrNoPostgres
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// runAs is who runs initdb and postgres: the current user, or nobody when
// that is root.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, and no unprivileged user to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Start runs initdb in a new temporary directory and starts postgres on a
// unix socket there, returning once it accepts connections.
func Start() (*Server, error) {
	initdb, postgres, err := binaries()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	// A short path: a unix socket's path is limited to 107 bytes.
	dir, err := os.MkdirTemp("", "pg")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	init := exec.Command(initdb, "-D", data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
	init.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	init.Dir = dir
	if out, err := init.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %w\n%s", err, out))
	}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	// Durability is not what these tests are about: no fsync.
	cmd := exec.Command(postgres, "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=16MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = dir
	// The server dies with the test binary however that ends (SIGQUIT:
	// its immediate shutdown).
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start postgres: %w", err))
	}
	s := &Server{dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady dials until the server answers, it exits, or readyWithin.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), readyWithin)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited at start:\n%s", s.Log())
		case <-ctx.Done():
			return fmt.Errorf("postgres not ready within %s: %v\n%s", readyWithin, err, s.Log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// URL is the URL of database db on this server.
func (s *Server) URL(db string) string {
	return "postgres://" + superuser + "@/" + db + "?host=" + s.dir + "&sslmode=disable"
}

// Log is what the server printed.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	return string(b)
}

// CreateDatabase makes a new, empty database named after hint and returns
// its URL.
func (s *Server) CreateDatabase(ctx context.Context, hint string) (string, error) {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(hint))
	name = fmt.Sprintf("%.40s_%d", name, s.dbs.Add(1))
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("create database: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Stop shuts the server down (fast: it disconnects clients), waits for it
// and removes its directory.
func (s *Server) Stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return os.RemoveAll(s.dir)
}

// The package's shared server: started by the first Database, stopped by
// Run once the tests end.
var shared struct {
	running atomic.Bool // Run is running the tests
	once    sync.Once
	srv     *Server
	err     error
}

// Run runs a package's tests (a TestMain's m.Run) and then stops the
// server they started, if any; TestMain exits with its code.
func Run(m *testing.M) int {
	shared.running.Store(true)
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stop postgres: %v\n", err)
		}
	}
	return code
}

// Server is the package's shared server, started on first use; the test
// is skipped when PostgreSQL is not installed, and fails when it is but
// will not start.
func Shared(t testing.TB) *Server {
	t.Helper()
	if !shared.running.Load() {
		t.Fatal("pgtest: the package's TestMain must call pgtest.Run, which stops the server")
	}
	shared.once.Do(func() { shared.srv, shared.err = Start() })
	if errors.Is(shared.err, ErrNoPostgres) {
		t.Skipf("pgtest: %v", shared.err)
	}
	if shared.err != nil {
		t.Fatalf("pgtest: %v", shared.err)
	}
	return shared.srv
}

// Database is the URL of a new, empty database on the package's shared
// server, for this test alone.
func Database(t testing.TB) string {
	t.Helper()
	url, err := Shared(t).CreateDatabase(context.Background(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
