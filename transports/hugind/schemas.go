package hugind

// The JSON Schema of each method's params, offered as its MCP tool's
// inputSchema; descriptions are the tools'.
type toolDoc struct {
	description string
	schema      map[string]any
}

func object(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var (
	str       = map[string]any{"type": "string"}
	boolean   = map[string]any{"type": "boolean"}
	port      = map[string]any{"type": "integer", "minimum": 0, "maximum": 65535}
	positive  = map[string]any{"type": "integer", "minimum": 1}
	strings   = map[string]any{"type": "array", "items": str}
	noParams  = object(nil, map[string]any{})
	repoParam = map[string]any{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$", "description": "owner/name"}
)

var toolDocs = map[string]toolDoc{
	"agent.list":    {"List the installed agents.", noParams},
	"agent.install": {"Install an agent package (a folder, an agent.yaml, a .zip or an http(s) URL); approve_permissions must be true when it asks for any.", object([]string{"path"}, map[string]any{"path": str, "approve_permissions": boolean, "overwrite": boolean})},
	"agent.remove":  {"Remove an installed agent.", object([]string{"name"}, map[string]any{"name": str})},
	"agent.run": {"Run an agent (a folder, an agent.yaml or an installed name) to its end, with agent_event notifications.", object([]string{"path"}, map[string]any{
		"path": str, "args": strings, "cwd": str, "timeout_ms": map[string]any{"type": "integer", "minimum": 0},
	})},
	"config.list":     {"List the llama-server configs.", noParams},
	"config.validate": {"Check a config file (a path, or a config's name) and report every problem with its field.", object([]string{"path"}, map[string]any{"path": str})},
	"config.info":     {"Where configs and models live, the machine's memory and CPUs, and the llama-server found on PATH.", noParams},
	"config.remove":   {"Delete a config; confirm must be true.", object([]string{"name", "confirm"}, map[string]any{"name": str, "confirm": boolean})},
	"config.defaults": {"Show the shared defaults; save hf_token or hf_endpoint when given.", object(nil, map[string]any{"hf_token": str, "hf_endpoint": str})},
	"config.init": {"Make a config for a model file, sizing the context from the model and the machine's memory.", object([]string{"name", "model_path"}, map[string]any{
		"name": str, "model_path": str, "ctx": positive, "mmproj_path": str, "overwrite": boolean, "n_slots": positive,
		"enable_fit": boolean, "fit_target_mib": map[string]any{"type": "array", "items": positive},
	})},
	"model.list": {"List the downloaded model repos.", noParams},
	"model.show": {"Show a repo's files with their GGUF headers: architecture, context length, blocks, vocabulary, parameters, chat template.", object([]string{"repo"}, map[string]any{"repo": repoParam})},
	"model.add":  {"Download files of a repo, resumably, verified by size and sha256, with progress notifications.", object([]string{"repo", "files"}, map[string]any{"repo": repoParam, "files": map[string]any{"type": "array", "items": str, "minItems": 1}})},
	"model.remove": {"Delete files of a repo, or the whole repo.", object([]string{"repo"}, map[string]any{
		"repo": repoParam, "files": strings, "delete_repo": boolean, "delete_if_empty": boolean,
	})},
	"server.list":  {"List the llama-servers and their status.", noParams},
	"server.start": {"Start a config's llama-server; answers once its /health says 200.", object([]string{"config"}, map[string]any{"config": str, "port": port})},
	"server.stop":  {"Stop a config's llama-server: SIGTERM, then SIGKILL after a grace.", object([]string{"config"}, map[string]any{"config": str})},
}
