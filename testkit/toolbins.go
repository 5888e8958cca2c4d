package testkit

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// toolBin is a program of the test kit, built once per test process.
type toolBin struct {
	pkg, name string // the package under testkit/cmd, the binary's name
	once      sync.Once
	path      string
	err       error
}

func (b *toolBin) build(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := binDir(b.pkg + "-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, b.name)
		out, err := exec.Command("go", "build", "-o", b.path, "github.com/troupehq/troupe/testkit/cmd/"+b.pkg).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build %s: %w\n%s", b.pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

var (
	fakeLlama = &toolBin{pkg: "fake-llama-server", name: "llama-server"}
	mcpTest   = &toolBin{pkg: "troupe-mcptest", name: "troupe-mcptest"}
	plugin    = &toolBin{pkg: "troupe-plugin", name: "troupe-plugin"}
)

// BuildFakeLlamaServer returns the path of testkit/cmd/fake-llama-server,
// built once per test process: a stand-in for llama-server that takes its
// flags (see that command's documentation).
func BuildFakeLlamaServer(t testing.TB) string { return fakeLlama.build(t) }

// BuildMCPTestServer returns the path of testkit/cmd/troupe-mcptest (an MCP
// server over stdio with progress, tool list changes, crashes and refusal
// on demand), built once per test process.
func BuildMCPTestServer(t testing.TB) string { return mcpTest.build(t) }

// BuildPlugin returns the path of testkit/cmd/troupe-plugin, built once
// per test process: a small extension or transformer speaking the hydra
// protocol over /acp (see that command's documentation).
func BuildPlugin(t testing.TB) string { return plugin.build(t) }

var acpAgent = &toolBin{pkg: "troupe-acpagent", name: "troupe-acpagent"}

// BuildACPAgent returns the path of testkit/cmd/troupe-acpagent, built
// once per test process: the scripted ACP agent (see testkit/acpagent).
func BuildACPAgent(t testing.TB) string { return acpAgent.build(t) }
