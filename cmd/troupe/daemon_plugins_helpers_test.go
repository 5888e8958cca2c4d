package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// pluginInfo is an entry of /v1/extensions or /v1/transformers.
type pluginInfo struct {
	Name     string            `json:"name"`
	Command  []string          `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Enabled  bool              `json:"enabled"`
	PID      int               `json:"pid"`
	Status   string            `json:"status"`
	Version  string            `json:"version"`
	Restarts int               `json:"restartCount"`
}

// registerPlugin registers testkit's plugin program as kind ("extensions"
// or "transformers") name with env; it returns the file the program logs
// every frame it reads to.
func (d *daemonProc) registerPlugin(t *testing.T, kind, name string, env map[string]string) string {
	t.Helper()
	log := filepath.Join(t.TempDir(), name+".log")
	full := map[string]string{"PLUGIN_LOG": log}
	for k, v := range env {
		full[k] = v
	}
	var in pluginInfo
	d.call(t, "POST", "/v1/"+kind, map[string]any{"name": name, "command": []string{testkit.BuildPlugin(t)}, "env": full},
		http.StatusCreated, &in)
	testkit.Equal(t, in.Name, name)
	return log
}

func (d *daemonProc) plugin(t *testing.T, kind, name string) pluginInfo {
	t.Helper()
	var in pluginInfo
	d.call(t, "GET", "/v1/"+kind+"/"+name, nil, http.StatusOK, &in)
	return in
}

// waitRunning waits for name to run a pid other than not, and to have
// connected back (its probe is in its log).
func (d *daemonProc) waitRunning(t *testing.T, kind, name, log string, not int) pluginInfo {
	t.Helper()
	var in pluginInfo
	testkit.Eventually(t, 30*time.Second, name+" running", func() bool {
		in = d.plugin(t, kind, name)
		return in.Status == "running" && in.PID != 0 && in.PID != not && probed(t, log, in.PID)
	})
	// Read again: the state read above may predate the probe.
	return d.plugin(t, kind, name)
}

// probed reports that the run of pid connected back and initialized as a
// transformer (or was refused): its probe line is in the log after its
// pid line.
func probed(t *testing.T, log string, pid int) bool {
	lines := logLines(t, log)
	seen := false
	for _, l := range lines {
		if l["pid"] == float64(pid) {
			seen = true
		}
		if seen && l["probe"] == "transformer/initialize" {
			return true
		}
	}
	return false
}

// logLines reads a plugin's log.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	testkit.NoError(t, err)
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// processToken reads the per-process token from a program's environment.
func processToken(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	testkit.NoError(t, err)
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, "HYDRA_ACP_TOKEN="); ok {
			return v
		}
	}
	t.Fatalf("no HYDRA_ACP_TOKEN in the environment of %d", pid)
	return ""
}

// dialProcess connects to /acp with a process's own token (read from its
// environment), so the daemon takes the connection for that process, and
// initializes it under clientName.
func (d *daemonProc) dialProcess(t *testing.T, pid int, clientName string) *acpclient.Client {
	t.Helper()
	return acpclient.Dial(t, acpclient.Options{URL: d.wsURL(""), Subprotocols: acpclient.WithToken(processToken(t, pid)), Name: clientName, Wait: acpWait})
}
