package agentcatalog_test

import (
	"archive/tar"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/testkit"
)

// binaryHome is a home whose file registry has agent "bin-agent" with
// this platform's archive (named name, holding data) and checksum sha.
func binaryHome(t *testing.T, name string, data []byte, sha string, overrides map[string]any) (string, string) {
	t.Helper()
	docs := t.TempDir()
	archive := writeFile(t, docs, name, data)
	target := map[string]any{"archive": "file://" + archive, "cmd": "./dist/agent", "args": []string{"acp"}}
	if sha != "" {
		target["sha256"] = sha
	}
	url := registryDoc(t, docs, "1", map[string]any{"id": "bin-agent", "name": "Bin", "version": "2.0.0",
		"distribution": map[string]any{"binary": map[string]any{agentcatalog.PlatformKey(): target}}})
	cfg := map[string]any{"registry": map[string]any{"url": url}}
	if overrides != nil {
		cfg["agentOverrides"] = overrides
	}
	return home(t, cfg), docs
}

var goodArchive = []entry{
	{name: "dist/", typ: tar.TypeDir, mode: 0o755},
	{name: "dist/agent", body: "#!/bin/sh\necho agent \"$@\"\n", mode: 0o644},
	{name: "dist/lib/data.txt", body: "data"},
	{name: "dist/current", typ: tar.TypeSymlink, link: "lib/data.txt"},
}

// A binary agent is downloaded, checked and extracted; Lookup then answers
// the extracted command, which runs; progress follows Hydra's phases.
func TestInstallBinary(t *testing.T) {
	data := tarGz(t, goodArchive...)
	h, _ := binaryHome(t, "agent-linux.tar.gz", data, sum(data), nil)
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	if _, err := c.Lookup("bin-agent"); !errors.Is(err, agentcatalog.ErrNotInstalled) {
		t.Fatalf("before install: %v", err)
	}
	var phases []string
	res, err := c.Install(context.Background(), "bin-agent", func(p agentcatalog.Progress) {
		if p.AgentID != "bin-agent" || p.Version != "2.0.0" || p.Source != "binary" {
			t.Errorf("progress %+v", p)
		}
		phases = append(phases, p.Phase)
	})
	testkit.NoError(t, err)
	want := filepath.Join(h, "agents", "bin-agent", "2.0.0", "dist", "agent")
	if !res.Installed || res.Distribution != "binary" || res.Command != want {
		t.Fatalf("install = %+v", res)
	}
	if !slices.Equal(phases, []string{"download_start", "download_done", "extract", "installed"}) {
		t.Fatalf("phases %v", phases)
	}
	a, err := c.Lookup("bin-agent")
	testkit.NoError(t, err)
	if a.Launch.Command != want || !slices.Equal(a.Launch.Args, []string{"acp"}) || a.Installed != "yes" {
		t.Fatalf("lookup = %+v", a)
	}
	out, err := exec.Command(a.Launch.Command, a.Launch.Args...).Output()
	testkit.NoError(t, err)
	if string(out) != "agent acp\n" {
		t.Fatalf("ran: %q", out)
	}
	if got, err := os.ReadFile(filepath.Join(h, "agents", "bin-agent", "2.0.0", "dist", "current")); err != nil || string(got) != "data" {
		t.Fatalf("symlink inside: %q %v", got, err)
	}
	// Installed already: answered without another download.
	phases = nil
	_, err = c.Install(context.Background(), "bin-agent", func(p agentcatalog.Progress) { phases = append(phases, p.Phase) })
	testkit.NoError(t, err)
	if len(phases) != 0 {
		t.Fatalf("second install: %v", phases)
	}
}

// An archive whose sha256 is not the registry's is refused before
// anything is extracted.
func TestInstallBinaryBadChecksum(t *testing.T) {
	data := tarGz(t, goodArchive...)
	h, _ := binaryHome(t, "agent.tar.gz", data, sum([]byte("something else")), nil)
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	var phases []string
	_, err = c.Install(context.Background(), "bin-agent", func(p agentcatalog.Progress) { phases = append(phases, p.Phase) })
	if !errors.Is(err, agentcatalog.ErrChecksum) {
		t.Fatalf("install: %v", err)
	}
	if slices.Contains(phases, "extract") || slices.Contains(phases, "installed") {
		t.Fatalf("phases %v", phases)
	}
	assertNothingInstalled(t, h)
	if _, err := c.Lookup("bin-agent"); !errors.Is(err, agentcatalog.ErrNotInstalled) {
		t.Fatalf("lookup: %v", err)
	}
}

// Without a checksum an archive is not installed; agentOverrides.sha256
// supplies one.
func TestInstallBinaryNeedsChecksum(t *testing.T) {
	data := tarGz(t, goodArchive...)
	h, _ := binaryHome(t, "agent.tar.gz", data, "", nil)
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	if _, err := c.Install(context.Background(), "bin-agent", nil); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("install: %v", err)
	}
	assertNothingInstalled(t, h)
	h, _ = binaryHome(t, "agent.tar.gz", data, "", map[string]any{"bin-agent": map[string]any{"sha256": strings.ToUpper(sum(data))}})
	c, err = agentcatalog.Load(h)
	testkit.NoError(t, err)
	_, err = c.Install(context.Background(), "bin-agent", nil)
	testkit.NoError(t, err)
}

// An archive with an entry or a link leaving the install directory is
// refused, and nothing lands outside it (or in it).
func TestInstallBinaryRefusesEscapes(t *testing.T) {
	cases := map[string][]byte{
		"dotdot.tar.gz":      tarGz(t, entry{name: "dist/agent", body: "x"}, entry{name: "../../escaped", body: "x"}),
		"abs.tar.gz":         tarGz(t, entry{name: "/tmp/escaped", body: "x"}),
		"symlink-out.tar.gz": tarGz(t, entry{name: "dist/agent", body: "x"}, entry{name: "dist/out", typ: tar.TypeSymlink, link: "../../../escaped"}),
		"symlink-abs.tar.gz": tarGz(t, entry{name: "dist/out", typ: tar.TypeSymlink, link: "/etc"}),
		// A link to a directory inside is fine; writing through one that
		// climbs out is not.
		"through-link.tar.gz": tarGz(t, entry{name: "up", typ: tar.TypeSymlink, link: "."}, entry{name: "up/../../escaped", body: "x"}),
		// Links that read as inside but resolve outside once followed.
		"link-via-link.tar.gz":    tarGz(t, entry{name: "a", typ: tar.TypeSymlink, link: "."}, entry{name: "a/l", typ: tar.TypeSymlink, link: "../escaped"}),
		"climb-after-link.tar.gz": tarGz(t, entry{name: "b", typ: tar.TypeSymlink, link: "."}, entry{name: "c", typ: tar.TypeSymlink, link: "b/../escaped"}),
		"dangling.tar.gz":         tarGz(t, entry{name: "dist/agent", body: "x"}, entry{name: "dist/nothing", typ: tar.TypeSymlink, link: "missing"}),
		"hardlink.tar.gz":         tarGz(t, entry{name: "dist/agent", typ: tar.TypeLink, link: "/etc/passwd"}),
		"dotdot.zip":              zipOf(t, entry{name: "dist/agent", body: "x"}, entry{name: "../escaped", body: "x"}),
		"symlink-out.zip":         zipOf(t, entry{name: "dist/out", link: "../../../escaped"}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			h, docs := binaryHome(t, name, data, sum(data), nil)
			c, err := agentcatalog.Load(h)
			testkit.NoError(t, err)
			_, err = c.Install(context.Background(), "bin-agent", nil)
			if !errors.Is(err, agentcatalog.ErrUnsafeArchive) {
				t.Fatalf("install: %v", err)
			}
			assertNothingInstalled(t, h)
			for _, dir := range []string{h, filepath.Dir(h), docs, filepath.Join(h, "agents")} {
				if _, err := os.Lstat(filepath.Join(dir, "escaped")); err == nil {
					t.Fatalf("escaped into %s", dir)
				}
			}
		})
	}
}

// assertNothingInstalled checks the home's agents directory has no
// install (and no leftover staging directory).
func assertNothingInstalled(t *testing.T, h string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(h, "agents"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(filepath.Join(h, "agents"), p); strings.Count(rel, string(filepath.Separator)) >= 1 {
			t.Errorf("left in agents: %s", rel)
		}
		return nil
	})
	testkit.NoError(t, err)
}

// An npx agent is installed with npm from the configured npm registry (a
// loopback server here), its install scripts not run; Lookup answers its
// bin, which runs.
func TestInstallNPM(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH: the npx install needs it (CI installs Node.js and npm to run this test)")
	}
	tgz := npmTarball(t, "testdata/tiny-agent")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tiny-agent":
			pkg := map[string]any{}
			b, err := os.ReadFile("testdata/tiny-agent/package.json")
			testkit.NoError(t, err)
			testkit.NoError(t, json.Unmarshal(b, &pkg))
			s1 := sha1.Sum(tgz)
			s512 := sha512.Sum512(tgz)
			pkg["dist"] = map[string]any{"tarball": srv.URL + "/tiny-agent/-/tiny-agent-1.0.0.tgz",
				"shasum": hex.EncodeToString(s1[:]), "integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:])}
			w.Header().Set("Content-Type", "application/json")
			testkit.NoError(t, json.NewEncoder(w).Encode(map[string]any{"name": "tiny-agent",
				"dist-tags": map[string]string{"latest": "1.0.0"}, "versions": map[string]any{"1.0.0": pkg}}))
		case "/tiny-agent/-/tiny-agent-1.0.0.tgz":
			_, _ = w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	docs := t.TempDir()
	url := registryDoc(t, docs, "1", map[string]any{"id": "tiny", "name": "Tiny", "version": "1.0.0",
		"distribution": map[string]any{"npx": map[string]any{"package": "tiny-agent@1.0.0", "args": []string{"--acp"}}}})
	h := home(t, map[string]any{"registry": map[string]any{"url": url}, "npmRegistry": srv.URL + "/"})
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	var phases []string
	res, err := c.Install(context.Background(), "tiny", func(p agentcatalog.Progress) {
		phases = append(phases, p.Phase)
		if p.Source != "npm" || p.AgentID != "tiny" {
			t.Errorf("progress %+v", p)
		}
	})
	testkit.NoError(t, err)
	dir := filepath.Join(h, "agents", "tiny", "1.0.0")
	if !res.Installed || res.Distribution != "npx" || res.Command != filepath.Join(dir, "node_modules", ".bin", "tiny-acp") {
		t.Fatalf("install = %+v", res)
	}
	if !slices.Equal(phases, []string{"install_start", "installed"}) {
		t.Fatalf("phases %v", phases)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "tiny-agent", "SCRIPT_RAN")); err == nil {
		t.Fatal("the package's postinstall script ran")
	}
	a, err := c.Lookup("tiny")
	testkit.NoError(t, err)
	out, err := exec.Command(a.Launch.Command, a.Launch.Args...).Output()
	testkit.NoError(t, err)
	if string(out) != "tiny-acp --acp\n" {
		t.Fatalf("ran: %q", out)
	}
}

// A registry's npm spec that is not a registry package (an option, a URL,
// a path) is refused before npm runs.
func TestInstallNPMRefusesOddSpecs(t *testing.T) {
	for _, spec := range []string{"--global", "git+ssh://x/y", "file:../x", "../x", "https://evil/x.tgz"} {
		docs := t.TempDir()
		url := registryDoc(t, docs, "1", map[string]any{"id": "odd", "name": "Odd",
			"distribution": map[string]any{"npx": map[string]any{"package": spec}}})
		c, err := agentcatalog.Load(home(t, map[string]any{"registry": map[string]any{"url": url}}))
		testkit.NoError(t, err)
		if _, err := c.Install(context.Background(), "odd", nil); err == nil || !strings.Contains(err.Error(), "not a registry package spec") {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}

// npmTarball packs dir as npm does: a gzipped tar under package/.
func npmTarball(t *testing.T, dir string) []byte {
	t.Helper()
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		st, _ := d.Info()
		entries = append(entries, entry{name: "package/" + filepath.ToSlash(rel), body: string(b), mode: int64(st.Mode().Perm())})
		return nil
	})
	testkit.NoError(t, err)
	return tarGz(t, entries...)
}
