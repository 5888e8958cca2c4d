package tools

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
)

// errWalkStop ends a directory walk early once enough was found.
var errWalkStop = errors.New("stop walking")

// walkTree walks the tree below root with the rules glob and grep share, so
// that both see the same files: it stops as soon as ctx is done, passes
// over entries it cannot read (as find and grep -s do), and never offers
// root itself. enter decides whether to descend into a directory; visit is
// called for everything else, and may return errWalkStop to end the walk
// without an error.
func walkTree(ctx context.Context, root string,
	enter func(path string, d fs.DirEntry) bool,
	visit func(path string, d fs.DirEntry) error,
) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil || path == root {
			return nil
		}
		if d.IsDir() {
			if !enter(path, d) {
				return filepath.SkipDir
			}
			return nil
		}
		return visit(path, d)
	})
	if errors.Is(err, errWalkStop) {
		return nil
	}
	return err
}
