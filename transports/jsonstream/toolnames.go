package jsonstream

// builtinNames are the built-in tools' names as aionrs hosts know them
// (the spec's Read, Write, Edit, Bash, Glob, Grep; LS as Claude Code names
// it): hosts key their UI on them. The model keeps troupe's own names; an
// MCP tool is shown as the model sees it.
var builtinNames = map[string]string{
	"read": "Read", "write": "Write", "edit": "Edit", "bash": "Bash",
	"glob": "Glob", "grep": "Grep", "ls": "LS", "spawn": "Spawn",
}

// toolName is a call's tool.name / tool_name.
func toolName(name string) string {
	if shown, ok := builtinNames[name]; ok {
		return shown
	}
	return name
}

// builtin reports whether name is one of the built-in tools.
func builtin(name string) bool {
	_, ok := builtinNames[name]
	return ok
}
