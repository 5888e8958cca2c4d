package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/runtime/tools"
)

// files serves the agent's fs/read_text_file and fs/write_text_file
// within the session's directories (its cwd and additional directories,
// symbolic links followed): a path outside them is refused, read or
// write, since no person was asked about it. The agent asks its own
// permission for edits inside them, as it would of any client.
type files struct {
	dirs []string // dirs[0] is the session's cwd
}

// maxRead bounds one read: an agent that asks for a huge file gets an
// error rather than a daemon holding it all.
const maxRead = 16 << 20

func (f *files) check(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", acp.NewInvalidParams(map[string]string{"path": path, "error": "the path must be absolute"})
	}
	call := tools.Call{Cwd: f.dirs[0], AllowedDirs: f.dirs[1:]}
	if !tools.Within(call, path) {
		return "", acp.NewInvalidParams(map[string]string{"path": path,
			"error": "outside the session's directories: " + strings.Join(f.dirs, ", ")})
	}
	return filepath.Clean(path), nil
}

func (f *files) read(path string, line, limit *int) (string, error) {
	p, err := f.check(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", acp.NewInternalError(map[string]string{"path": path, "error": err.Error()})
	}
	if st.Size() > maxRead {
		return "", acp.NewInvalidParams(map[string]string{"path": path, "error": fmt.Sprintf("larger than %d bytes", maxRead)})
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", acp.NewInternalError(map[string]string{"path": path, "error": err.Error()})
	}
	text := string(b)
	if line == nil && limit == nil {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 {
		end = min(start+*limit, len(lines))
	}
	return strings.Join(lines[start:end], ""), nil
}

func (f *files) write(path, content string) error {
	p, err := f.check(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return acp.NewInternalError(map[string]string{"path": path, "error": err.Error()})
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return acp.NewInternalError(map[string]string{"path": path, "error": err.Error()})
	}
	return nil
}
