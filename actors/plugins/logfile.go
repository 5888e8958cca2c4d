package plugins

import (
	"os"
	"path/filepath"
)

// logPath is where this process's output is appended, "" without a
// LogDir.
func (m *member) logPath() string {
	if m.opts.LogDir == "" {
		return ""
	}
	return filepath.Join(m.opts.LogDir, m.spec.Name, "current.log")
}

// openLog opens the log file a run's output is appended to. A file that
// cannot be opened is logged and the run goes on: its output still
// reaches the daemon's log at debug level.
func (m *member) openLog() {
	m.closeLog()
	path := m.logPath()
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		m.opts.Log.Warn(m.opts.Kind+" log file", "name", m.spec.Name, "error", err)
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		m.opts.Log.Warn(m.opts.Kind+" log file", "name", m.spec.Name, "error", err)
		return
	}
	m.out = f
}

// writeLine appends one output line. The write is a local append, like
// the daemon log's own writes from this actor; its error is dropped (the
// line is in the daemon's log at debug level).
func (m *member) writeLine(text string) {
	if m.out != nil {
		_, _ = m.out.WriteString(text + "\n")
	}
}

func (m *member) closeLog() {
	if m.out != nil {
		_ = m.out.Close()
		m.out = nil
	}
}
