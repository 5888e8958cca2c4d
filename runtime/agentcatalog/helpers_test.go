package agentcatalog_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// entry is one member of an archive a test builds.
type entry struct {
	name, body, link string
	typ              byte // tar.TypeReg when zero
	mode             int64
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, Size: int64(len(e.body))}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		testkit.NoError(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			testkit.NoError(t, err)
		}
	}
	testkit.NoError(t, tw.Close())
	testkit.NoError(t, gz.Close())
	return b.Bytes()
}

func zipOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store}
		h.SetMode(fs.FileMode(0o644))
		body := e.body
		if e.link != "" {
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		}
		w, err := zw.CreateHeader(h)
		testkit.NoError(t, err)
		_, err = w.Write([]byte(body))
		testkit.NoError(t, err)
	}
	testkit.NoError(t, zw.Close())
	return b.Bytes()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeFile writes b at dir/name and answers its path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	testkit.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// registryDoc writes a registry document of agents into dir and answers
// its file URL.
func registryDoc(t *testing.T, dir, version string, agents ...map[string]any) string {
	t.Helper()
	if agents == nil {
		agents = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"version": version, "agents": agents})
	testkit.NoError(t, err)
	return "file://" + writeFile(t, dir, "registry-doc.json", b)
}

// home is a home whose config.json is cfg (marshalled).
func home(t *testing.T, cfg map[string]any) string {
	t.Helper()
	h := t.TempDir()
	b, err := json.Marshal(cfg)
	testkit.NoError(t, err)
	writeFile(t, h, "config.json", b)
	return h
}

// mkdirWrite creates an empty executable file at p, its directories too.
func mkdirWrite(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o755)
}
