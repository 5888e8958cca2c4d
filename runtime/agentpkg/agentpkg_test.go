package agentpkg

import (
	"archive/zip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const plain = "name: hello\nversion: 1.0.0\nentry: main.js\n"
const asking = "name: shelly\npermissions:\n  shell: {commands: [ls]}\n"

func pkg(t *testing.T, manifest string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"agent.yaml": manifest, "main.js": "print('hi')\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestParseDefaultsAndErrors(t *testing.T) {
	m, err := Parse([]byte("name: a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Entry != "main.js" || m.Mode != ModeAgentic || m.Backend.Session != SessionStateless {
		t.Errorf("defaults %+v", m)
	}
	for src, want := range map[string]string{
		"version: 1\n":                          "name is required",
		"name: a\nmode: chat\n":                 `mode must be agentic or script, not "chat"`,
		"name: a\nruntime: '>=2.0'\n":           `runtime: ">=2.0" is not met`,
		"name: a\npermissions: {shel: {}}\n":    "field shel not found",
		"name: a\nentry: ../x.js\n":             "must be a path inside the package",
		"name: a\nbackend: {session: sticky}\n": "backend.session must be stateless, fresh or resume",
		"name: a/b\n":                           "letters, digits",
	} {
		if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	if _, err := Parse([]byte("name: a\nruntime: '1'\n")); err != nil {
		t.Errorf("runtime 1: %v", err)
	}
}

func TestInstallListRemove(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	info, err := Install(ctx, home, pkg(t, plain), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Path != filepath.Join(home, "agents", "hello") {
		t.Errorf("path %s", info.Path)
	}
	if _, err := Install(ctx, home, filepath.Join(pkg(t, plain), "agent.yaml"), InstallOptions{}); err == nil || !strings.Contains(err.Error(), "already installed") {
		t.Errorf("second install: %v", err)
	}
	if _, err := Install(ctx, home, pkg(t, plain), InstallOptions{Overwrite: true}); err != nil {
		t.Errorf("overwrite: %v", err)
	}
	if _, err := Install(ctx, home, pkg(t, asking), InstallOptions{}); !errors.Is(err, ErrPermissionsNotApproved) || !strings.Contains(err.Error(), "shell ls") {
		t.Errorf("unapproved: %v", err)
	}
	if _, err := Install(ctx, home, pkg(t, asking), InstallOptions{ApprovePermissions: true}); err != nil {
		t.Errorf("approved: %v", err)
	}
	list, err := List(home)
	if err != nil || len(list) != 2 || list[0].Name != "hello" || list[1].Name != "shelly" {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := Remove(home, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(home, "hello"); err == nil || !strings.Contains(err.Error(), "no such agent") {
		t.Errorf("second remove: %v", err)
	}
}

func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	for name, body := range files {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInstallZipAndURL(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	z := zipOf(t, map[string]string{"hello-main/agent.yaml": plain, "hello-main/main.js": "print(1)"})
	if _, err := Install(ctx, home, z, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "agents", "hello", "main.js")); err != nil {
		t.Fatal(err)
	}
	evil := zipOf(t, map[string]string{"agent.yaml": plain, "main.js": "", "../../escape": "x"})
	if _, err := Install(ctx, home, evil, InstallOptions{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "outside the package") {
		t.Errorf("zip slip: %v", err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(z))))
	defer srv.Close()
	if _, err := Install(ctx, home, srv.URL+"/agent.zip", InstallOptions{Overwrite: true}); err != nil {
		t.Errorf("url: %v", err)
	}
	if _, err := Install(ctx, home, srv.URL+"/missing.zip", InstallOptions{}); err == nil || !strings.Contains(err.Error(), "http 404") {
		t.Errorf("missing url: %v", err)
	}
}

func TestResolve(t *testing.T) {
	home := t.TempDir()
	src := pkg(t, plain)
	if _, err := Install(context.Background(), home, src, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{src, filepath.Join(src, "agent.yaml"), "hello"} {
		if _, m, err := Resolve(home, p); err != nil || m.Name != "hello" {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, _, err := Resolve(home, "nobody"); err == nil || !strings.Contains(err.Error(), "no such agent: nobody") {
		t.Errorf("unknown: %v", err)
	}
}

func TestInstallLeavesLinksOut(t *testing.T) {
	src := pkg(t, plain)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	info, err := Install(context.Background(), t.TempDir(), src, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(info.Path, "link")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link was installed: %v", err)
	}
}
