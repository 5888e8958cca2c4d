// Package etcdtest runs a real etcd server for a test: one member in a
// temporary data directory, its client and peer URLs on loopback ports
// taken from the kernel, stopped when the test ends. Without etcd's
// binary (etcd on PATH; Debian's etcd-server package) Start skips the
// test, saying so; nothing else skips it. It owns the etcd process and
// its directory, nothing else.
package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyWithin bounds a server's start, until its health endpoint says so.
const readyWithin = 30 * time.Second

// stopWithin bounds a graceful stop before the server is killed.
const stopWithin = 10 * time.Second

// attempts is how often Start tries fresh ports: a port taken from the
// kernel is released for etcd to bind, and another process may take it
// in between.
const attempts = 3

// Server is a running etcd.
type Server struct {
	// Endpoint is the client URL (http://127.0.0.1:PORT).
	Endpoint string
	cmd      *exec.Cmd
	done     chan struct{} // closed when etcd exited
	log      *bytes.Buffer // what etcd printed; read once done is closed
}

// Start runs an etcd for t and stops it when t ends; t is skipped when
// etcd is not installed and fails when it is but will not start.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("etcdtest: etcd is not installed (Debian: apt-get install etcd-server)")
	}
	var errs []error
	for range attempts {
		s, err := start(bin, t.TempDir())
		if err == nil {
			t.Cleanup(func() {
				if err := s.Stop(); err != nil {
					t.Errorf("etcdtest: %v", err)
				}
			})
			return s
		}
		errs = append(errs, err)
	}
	t.Fatalf("etcdtest: %v", errors.Join(errs...))
	return nil
}

// freePorts are n loopback ports the kernel picked, released for etcd.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func start(bin, dir string) (*Server, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	cmd := exec.Command(bin,
		"--name", "test", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "test="+peer, "--initial-cluster-state", "new",
		"--logger", "zap", "--log-level", "warn")
	log := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = dir
	// The server dies with the test binary however that ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	s := &Server{Endpoint: client, cmd: cmd, done: make(chan struct{}), log: log}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady asks etcd's health endpoint until it is healthy, etcd exits,
// or readyWithin.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), readyWithin)
	defer cancel()
	for {
		if s.healthy(ctx) {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("etcd exited at start:\n%s", s.log)
		case <-ctx.Done():
			return fmt.Errorf("etcd not healthy within %s", readyWithin)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Server) healthy(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/health", nil)
	if err != nil {
		return false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode == http.StatusOK && strings.Contains(string(body), `"health":"true"`)
}

// Stop ends the server (SIGTERM; killed if it lingers) and waits for it;
// its directory is the test's, removed with it.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(stopWithin):
		_ = s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("etcd did not stop within %s on SIGTERM; killed", stopWithin)
	}
}
