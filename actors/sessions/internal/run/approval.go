package run

import (
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
)

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
	if p.Mode == event.ApprovalYolo {
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
		return p.Mode != event.ApprovalAutoEdit
	default:
		return true
	}
}
