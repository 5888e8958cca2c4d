package agentpkg

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// maxDownload bounds a package fetched from a URL or unpacked from a zip.
const maxDownload = 64 << 20

// InstallOptions are agent.install's flags.
type InstallOptions struct {
	// ApprovePermissions must be set when the manifest asks for any.
	ApprovePermissions bool
	// Overwrite replaces an installed agent of the same name.
	Overwrite bool
	// HTTPClient fetches URLs; nil: http.DefaultClient.
	HTTPClient *http.Client
}

// ErrPermissionsNotApproved is the refusal of a package asking for
// capabilities without InstallOptions.ApprovePermissions. Its message
// names no option: each front end says how its users approve (the CLI's
// --approve-permissions, the stdio bridge's approve_permissions).
var ErrPermissionsNotApproved = errors.New("permissions not approved")

// ErrAlreadyInstalled is the refusal to replace an installed agent
// without InstallOptions.Overwrite; like ErrPermissionsNotApproved, the
// front end says how to ask for it.
var ErrAlreadyInstalled = errors.New("already installed")

// Info is one installed agent.
type Info struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	Mode    string `json:"mode,omitempty"`
}

// Dir is where installed agents live.
func Dir(home string) string { return filepath.Join(home, "agents") }

// Install copies the package src names (a folder, its agent.yaml, a .zip,
// or an http(s) URL of a .zip or of an agent.yaml alone) into
// home/agents/<name>. The copy is made beside the destination and renamed
// into place, so a failed install leaves the installed agent as it was.
func Install(ctx context.Context, home, src string, opts InstallOptions) (Info, error) {
	if src == "" {
		return Info{}, errors.New("path is required")
	}
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		return Info{}, fmt.Errorf("install agent: %w", err)
	}
	stage, err := os.MkdirTemp(Dir(home), ".install-")
	if err != nil {
		return Info{}, fmt.Errorf("install agent: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := fetchInto(ctx, src, stage, opts.HTTPClient); err != nil {
		return Info{}, err
	}
	m, err := Load(stage)
	if err != nil {
		return Info{}, err
	}
	if _, err := os.Stat(filepath.Join(stage, m.Entry)); err != nil {
		return Info{}, fmt.Errorf("agent %s: entry %s is missing from the package", m.Name, m.Entry)
	}
	if asks, what := m.Asks(); asks && !opts.ApprovePermissions {
		return Info{}, fmt.Errorf("agent %s asks for %s: %w", m.Name, what, ErrPermissionsNotApproved)
	}
	dest := filepath.Join(Dir(home), m.Name)
	if _, err := os.Stat(dest); err == nil {
		if !opts.Overwrite {
			return Info{}, fmt.Errorf("agent %s is %w", m.Name, ErrAlreadyInstalled)
		}
		// The old copy moves aside until the new one is in place.
		old := stage + ".old"
		if err := os.Rename(dest, old); err != nil {
			return Info{}, fmt.Errorf("replace agent %s: %w", m.Name, err)
		}
		defer os.RemoveAll(old)
		if err := os.Rename(stage, dest); err != nil {
			_ = os.Rename(old, dest)
			return Info{}, fmt.Errorf("install agent %s: %w", m.Name, err)
		}
		return Info{Name: m.Name, Path: dest, Version: m.Version, Mode: m.Mode}, nil
	}
	if err := os.Rename(stage, dest); err != nil {
		return Info{}, fmt.Errorf("install agent %s: %w", m.Name, err)
	}
	return Info{Name: m.Name, Path: dest, Version: m.Version, Mode: m.Mode}, nil
}

// fetchInto puts the package's files in dir.
func fetchInto(ctx context.Context, src, dir string, client *http.Client) error {
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		return download(ctx, src, dir, client)
	}
	fi, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("install agent: %w", err)
	}
	switch {
	case fi.IsDir():
		return copyTree(src, dir)
	case strings.EqualFold(filepath.Ext(src), ".zip"):
		return unzipFile(src, dir)
	case filepath.Base(src) == ManifestFile:
		return copyTree(filepath.Dir(src), dir)
	}
	return fmt.Errorf("install agent: %s is not a folder, an agent.yaml nor a .zip", src)
}

func download(ctx context.Context, url, dir string, client *http.Client) error {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("download agent: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("download agent: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download agent %s: http %d", url, resp.StatusCode)
	}
	f, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return fmt.Errorf("download agent: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	n, err := io.Copy(f, io.LimitReader(resp.Body, maxDownload+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download agent %s: %w", url, err)
	}
	if n > maxDownload {
		return fmt.Errorf("download agent %s: larger than %d MiB", url, maxDownload>>20)
	}
	if isZip(tmp) {
		return unzipFile(tmp, dir)
	}
	// Anything else must be the manifest alone (an agent whose entry is
	// missing is refused after).
	return os.Rename(tmp, filepath.Join(dir, ManifestFile))
}

func isZip(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "PK\x03\x04"
}

// unzipFile extracts a zip into dir. A zip whose files all sit in one
// top folder (as GitHub's archives do) is unpacked from inside it.
func unzipFile(path, dir string) error {
	r, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("open agent zip: %w", err)
	}
	defer r.Close()
	prefix := commonTop(r.File)
	var total int64
	for _, f := range r.File {
		name := strings.TrimPrefix(f.Name, prefix)
		if name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if !inside(dir, target) {
			return fmt.Errorf("agent zip: %s points outside the package", f.Name)
		}
		total += int64(f.UncompressedSize64)
		if total > maxDownload {
			return fmt.Errorf("agent zip: more than %d MiB unpacked", maxDownload>>20)
		}
		if err := extract(f, target); err != nil {
			return err
		}
	}
	return nil
}

func commonTop(files []*zip.File) string {
	top := ""
	for _, f := range files {
		i := strings.Index(f.Name, "/")
		if i < 0 {
			return ""
		}
		if top != "" && top != f.Name[:i+1] {
			return ""
		}
		top = f.Name[:i+1]
	}
	if top != "" {
		for _, f := range files {
			if f.Name == top+ManifestFile {
				return top
			}
		}
	}
	return ""
}

func extract(f *zip.File, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("agent zip: %w", err)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("agent zip %s: %w", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("agent zip: %w", err)
	}
	_, err = io.Copy(out, io.LimitReader(rc, maxDownload))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("agent zip %s: %w", f.Name, err)
	}
	return nil
}

func inside(dir, target string) bool {
	rel, err := filepath.Rel(dir, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// copyTree copies regular files and folders from src; links and other
// special files are left out, so a package cannot carry in a file from
// outside itself.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy agent: %w", err)
		}
		rel, _ := filepath.Rel(src, path)
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("copy agent: %w", err)
		}
		return os.WriteFile(target, data, 0o600)
	})
}
