package agentcatalog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxArchiveBytes bounds a downloaded archive, and the bytes extracted
// from one.
const maxArchiveBytes = 2 << 30

// progressEvery is how many downloaded bytes make a download_progress.
const progressEvery = 1 << 20

// ErrChecksum is an archive whose sha256 is not the one the registry (or
// the home's agentOverrides) names; nothing of it is extracted.
var ErrChecksum = errors.New("archive checksum mismatch")

// installBinary downloads this platform's archive of e, checks its sha256
// and extracts it into e's install directory, answering the command.
func (c *Catalog) installBinary(ctx context.Context, e entry, progress func(Progress)) (string, error) {
	key := PlatformKey()
	t := e.dist.binary[key]
	if t == nil || t.Archive == "" {
		return "", fmt.Errorf("%w: %s has no archive for %s", ErrNotInstalled, e.id, cmp.Or(key, "this platform"))
	}
	if !validCmd(t.Cmd) {
		return "", fmt.Errorf("binary target's cmd %q is not a path inside the archive", t.Cmd)
	}
	want := strings.ToLower(cmp.Or(t.SHA256, e.sha256))
	if want == "" {
		return "", fmt.Errorf("the registry names no sha256 for %s's archive: troupe installs only verified archives (pin one with agentOverrides.%s.sha256 in config.json)", e.id, e.id)
	}
	if err := c.checkArchiveURL(t.Archive); err != nil {
		return "", err
	}
	dir := c.installDir(e)
	defer c.lockDir(dir).Unlock()
	cmdPath := filepath.Join(dir, filepath.FromSlash(t.Cmd))
	if exists(cmdPath) {
		return cmdPath, nil
	}
	tmp, err := stage(dir)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once committed
	version := e.versionKey()
	// The archive is kept outside the directory it is extracted into.
	archive, err := os.CreateTemp(filepath.Dir(dir), "archive-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(archive.Name())
	defer archive.Close()
	if err := c.download(ctx, t.Archive, archive, want, func(p Progress) {
		p.AgentID, p.Version, p.Source = e.id, version, "binary"
		progress(p)
	}); err != nil {
		return "", err
	}
	progress(Progress{AgentID: e.id, Version: version, Source: "binary", Phase: "extract"})
	if err := extract(archive, archiveKind(t.Archive), tmp); err != nil {
		return "", fmt.Errorf("extract %s: %w", t.Archive, err)
	}
	st, err := os.Lstat(filepath.Join(tmp, filepath.FromSlash(t.Cmd)))
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("the archive has no file %s", t.Cmd)
	}
	if err := os.Chmod(filepath.Join(tmp, filepath.FromSlash(t.Cmd)), st.Mode().Perm()|0o755); err != nil {
		return "", err
	}
	if err := commit(tmp, dir); err != nil {
		return "", err
	}
	progress(Progress{AgentID: e.id, Version: version, Source: "binary", Phase: "installed"})
	return cmdPath, nil
}

// checkArchiveURL refuses an archive URL the registry may not name: http
// or https always; a file URL only when the registry itself is a local
// file (a network document must not pick this machine's files).
func (c *Catalog) checkArchiveURL(raw string) error {
	if err := checkURL(raw, true); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	reg, _ := url.Parse(c.cfg.registry.URL)
	if u.Scheme == "file" && (reg == nil || reg.Scheme != "file") {
		return fmt.Errorf("archive %q: a file URL is accepted only from a registry that is a local file", raw)
	}
	return nil
}

// download copies rawURL into w, refusing it unless its sha256 is want.
func (c *Catalog) download(ctx context.Context, rawURL string, w io.Writer, want string, progress func(Progress)) error {
	body, size, err := open(ctx, c.client, rawURL)
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	defer body.Close()
	total := max(size, 0)
	progress(Progress{Phase: "download_start", ReceivedBytes: ptr(int64(0)), TotalBytes: &total})
	h := sha256.New()
	var got, told int64
	buf := make([]byte, 256<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			got += int64(n)
			if got > maxArchiveBytes {
				return fmt.Errorf("download %s: larger than %d bytes", rawURL, maxArchiveBytes)
			}
			h.Write(buf[:n])
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			if got-told >= progressEvery {
				told = got
				progress(Progress{Phase: "download_progress", ReceivedBytes: ptr(got), TotalBytes: &total})
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("download %s: %w", rawURL, rerr)
		}
	}
	progress(Progress{Phase: "download_done", ReceivedBytes: ptr(got), TotalBytes: &total})
	if sum := hex.EncodeToString(h.Sum(nil)); sum != want {
		return fmt.Errorf("%w: %s has sha256 %s, want %s", ErrChecksum, rawURL, sum, want)
	}
	return nil
}

// validCmd is a binary target's cmd: a relative path that stays inside
// the install directory.
func validCmd(cmd string) bool {
	if cmd == "" {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(path.Clean(strings.TrimPrefix(cmd, "./"))))
}

func ptr[T any](v T) *T { return &v }
