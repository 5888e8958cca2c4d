package turn

import (
	"github.com/troupehq/troupe/runtime/tools"
)

// Approval modes (the aionrs spec's names).
const (
	ModeDefault  = "default"
	ModeAutoEdit = "auto_edit"
	ModeYolo     = "yolo"
)

// ByMode resolves a permission request when the approval mode decides it
// (tool.permission_resolved's resolved_by): an allow after a mode change,
// or a denial because no one could be asked (Policy.DenyUnapproved).
const ByMode = "mode"

// Policy decides which calls need a person's decision.
type Policy struct {
	Mode string
	// Allowed are categories a client allowed "always" in this session.
	Allowed map[string]bool
	// DenyUnapproved answers every call that needs approval with a denial
	// (protocols that cannot ask, run outside yolo).
	DenyUnapproved bool
}

// needsApproval: yolo runs everything; auto_edit asks for exec and mcp, and
// for edits outside the session's directories; default asks for everything
// but reads. A category allowed "always" runs without asking, except edits
// outside the session's directories, which always ask (unless yolo).
func (p Policy) needsApproval(tool tools.Tool, call tools.Call) bool {
	if p.Mode == ModeYolo {
		return false
	}
	cat := tool.Category()
	outside := len(tools.OutsideAllowed(tool, call)) > 0
	if outside {
		return true
	}
	if p.Allowed[string(cat)] {
		return false
	}
	switch cat {
	case tools.CategoryInfo:
		return false
	case tools.CategoryEdit:
		return p.Mode != ModeAutoEdit
	default:
		return true
	}
}
