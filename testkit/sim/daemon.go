package sim

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/troupehq/troupe/testkit/subprocess"
)

// daemon is the troupe daemon the scenario runs against: one the runner
// started on its own home (it can be killed and restarted), or one given
// by URL.
type daemon struct {
	bin   string
	home  string
	env   []string
	args  []string
	proc  *subprocess.Proc
	url   string
	token string
	owned bool
	// logs, when set, keeps each daemon's stderr there (daemon-N.stderr).
	logs string
	runs int
}

// exited reports whether the daemon died (on its own: the runner waits
// out the deaths it causes).
func (d *daemon) exited() bool {
	if !d.owned || d.proc == nil {
		return false
	}
	select {
	case <-d.proc.Done():
		return true
	default:
		return false
	}
}

// keepLog writes the finished daemon's stderr to the logs directory.
func (d *daemon) keepLog() {
	if d.logs == "" || d.proc == nil {
		return
	}
	d.runs++
	_ = os.WriteFile(filepath.Join(d.logs, fmt.Sprintf("daemon-%d.stderr", d.runs)), []byte(d.proc.Stderr()), 0o644)
}

// start runs `troupe daemon` on port 0 in d.home and waits for its address.
func (d *daemon) start() error {
	_ = os.Remove(filepath.Join(d.home, "daemon.addr"))
	cmd := exec.Command(d.bin, append([]string{"daemon", "--home", d.home, "--listen", "127.0.0.1:0"}, d.args...)...)
	cmd.Env = append(os.Environ(), d.env...)
	p, err := subprocess.Launch(cmd)
	if err != nil {
		return fmt.Errorf("start daemon: %w", err)
	}
	d.proc = p
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(d.home, "daemon.addr"))
		if url := strings.TrimSpace(string(b)); err == nil && url != "" {
			d.url = url
			break
		}
		if _, err := p.ExitCode(0); err == nil {
			return fmt.Errorf("daemon exited at start: %s", p.Stderr())
		}
		if time.Now().After(deadline) {
			p.Stop()
			return fmt.Errorf("daemon wrote no address in 30s: %s", p.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
	tok, err := os.ReadFile(filepath.Join(d.home, "auth-token"))
	if err != nil {
		return fmt.Errorf("daemon token: %w", err)
	}
	d.token = strings.TrimSpace(string(tok))
	return nil
}

// kill sends SIGKILL and waits until the process is gone, so the next
// daemon may take its sessions' leases over.
func (d *daemon) kill() error {
	if !d.owned {
		return errors.New("kill_daemon needs a daemon the simulator started (--embedded)")
	}
	d.proc.Kill()
	if _, err := d.proc.ExitCode(30 * time.Second); err != nil {
		return fmt.Errorf("killed daemon: %w", err)
	}
	d.proc.Stop()
	d.keepLog()
	return nil
}

// stop asks the daemon to shut down in order and returns its exit code.
func (d *daemon) stop() (int, error) {
	if !d.owned {
		return 0, nil
	}
	d.proc.Signal(syscall.SIGTERM)
	code, err := d.proc.ExitCode(60 * time.Second)
	d.proc.Stop()
	d.keepLog()
	if err != nil {
		return -1, fmt.Errorf("daemon shutdown: %w", err)
	}
	return code, nil
}

// healthy reports whether /v1/health answers within timeout.
func (d *daemon) healthy(timeout time.Duration) bool {
	c := http.Client{Timeout: timeout}
	res, err := c.Get(d.url + "/v1/health")
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

func (d *daemon) wsURL() string { return "ws" + strings.TrimPrefix(d.url, "http") + "/acp" }
