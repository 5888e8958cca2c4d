package agentcatalog

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrUnsafeArchive is an archive with an entry that would land outside
// the install directory (an absolute or ".." path, a link pointing out),
// or one troupe does not extract (a hard link, a device).
var ErrUnsafeArchive = errors.New("unsafe archive")

// archiveKind is the format rawURL's name says: tar.gz, tar or zip.
func archiveKind(rawURL string) string {
	p := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		p = u.Path
	}
	p = strings.ToLower(p)
	switch {
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return "tar.gz"
	case strings.HasSuffix(p, ".tar"):
		return "tar"
	case strings.HasSuffix(p, ".zip"):
		return "zip"
	}
	return ""
}

// extract unpacks f (a file of kind) into dest. Every write goes through
// an os.Root on dest, which refuses any path that resolves outside it, and
// each entry is checked first so the error says which one: no absolute or
// escaping names, no symlink whose target leaves dest, no hard links or
// special files.
func extract(f *os.File, kind, dest string) error {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	x := &extractor{root: root}
	switch kind {
	case "tar.gz":
		gz, gerr := gzip.NewReader(f)
		if gerr != nil {
			return gerr
		}
		defer gz.Close()
		err = x.tar(tar.NewReader(gz))
	case "tar":
		err = x.tar(tar.NewReader(f))
	case "zip":
		st, serr := f.Stat()
		if serr != nil {
			return serr
		}
		zr, zerr := zip.NewReader(f, st.Size())
		if zerr != nil {
			return zerr
		}
		err = x.zip(zr)
	default:
		return errors.New("unsupported archive format (tar.gz, tgz, tar or zip)")
	}
	if err != nil {
		return err
	}
	return linksStayInside(dest)
}

// linksStayInside checks every symlink under dest resolves to something
// inside it. The per-entry check reads a target as a path from the link's
// directory as named; a link reached through another link ("a" -> ".",
// then "a/l" -> "../x"), or a target that climbs after passing through one
// ("b" -> ".", "c" -> "b/../x"), is only caught once resolved for real.
// A link to nothing is refused too: what it points at could appear later.
func linksStayInside(dest string) error {
	real, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return err
	}
	return filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		to, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%w: symlink %s points to nothing inside the install directory", ErrUnsafeArchive, rel)
		}
		if in, rerr := filepath.Rel(real, to); rerr != nil || !filepath.IsLocal(in) && in != "." {
			return fmt.Errorf("%w: symlink %s resolves outside the install directory", ErrUnsafeArchive, rel)
		}
		return nil
	})
}

type extractor struct {
	root    *os.Root
	written int64
}

func (x *extractor) tar(tr *tar.Reader) error {
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = x.dir(h.Name)
		case tar.TypeReg:
			err = x.file(h.Name, fs.FileMode(h.Mode), tr)
		case tar.TypeSymlink:
			err = x.symlink(h.Name, h.Linkname)
		case tar.TypeXGlobalHeader:
			continue
		default:
			err = fmt.Errorf("%w: %s is a %s, which troupe does not extract", ErrUnsafeArchive, h.Name, typeName(h.Typeflag))
		}
		if err != nil {
			return err
		}
	}
}

func (x *extractor) zip(zr *zip.Reader) error {
	for _, zf := range zr.File {
		mode := zf.Mode()
		var err error
		switch {
		case mode.IsDir():
			err = x.dir(zf.Name)
		case mode&fs.ModeSymlink != 0:
			err = x.zipSymlink(zf)
		case mode.IsRegular():
			err = x.zipFile(zf)
		default:
			err = fmt.Errorf("%w: %s is a special file, which troupe does not extract", ErrUnsafeArchive, zf.Name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (x *extractor) zipFile(zf *zip.File) error {
	r, err := zf.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return x.file(zf.Name, zf.Mode(), r)
}

func (x *extractor) zipSymlink(zf *zip.File) error {
	r, err := zf.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	target, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return err
	}
	return x.symlink(zf.Name, string(target))
}

// local is name as a path inside the root, or the error naming it.
func local(name string) (string, error) {
	clean := path.Clean(strings.TrimPrefix(name, "./"))
	if clean == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(clean)) || strings.Contains(name, `\`) {
		return "", fmt.Errorf("%w: entry %q leaves the install directory", ErrUnsafeArchive, name)
	}
	return filepath.FromSlash(clean), nil
}

func (x *extractor) dir(name string) error {
	p, err := local(name)
	if err != nil || p == "" {
		return err
	}
	return x.root.MkdirAll(p, 0o755)
}

func (x *extractor) file(name string, mode fs.FileMode, r io.Reader) error {
	p, err := local(name)
	if err != nil {
		return err
	}
	if p == "" {
		return fmt.Errorf("%w: a file entry with no name", ErrUnsafeArchive)
	}
	if err := x.root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// Permission bits only (no setuid), and always readable by the owner.
	f, err := x.root.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode.Perm()|0o600)
	if err != nil {
		return fmt.Errorf("extract %s: %w", name, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, maxArchiveBytes-x.written+1))
	x.written += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && x.written > maxArchiveBytes {
		err = fmt.Errorf("%w: more than %d bytes extracted", ErrUnsafeArchive, maxArchiveBytes)
	}
	return err
}

func (x *extractor) symlink(name, target string) error {
	p, err := local(name)
	if err != nil {
		return err
	}
	if p == "" || target == "" || path.IsAbs(target) || filepath.IsAbs(target) || strings.Contains(target, `\`) {
		return fmt.Errorf("%w: symlink %q -> %q points outside the install directory", ErrUnsafeArchive, name, target)
	}
	if _, err := local(path.Join(path.Dir(filepath.ToSlash(p)), target)); err != nil {
		return fmt.Errorf("%w: symlink %q -> %q points outside the install directory", ErrUnsafeArchive, name, target)
	}
	if err := x.root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return x.root.Symlink(target, p)
}

func typeName(t byte) string {
	switch t {
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "fifo"
	}
	return fmt.Sprintf("tar entry of type %q", t)
}
