package hugind

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/runtime/llamaconfig"
)

func (b *Bridge) configs() llamaconfig.Store {
	return llamaconfig.Store{Dir: filepath.Join(b.Home, "configs")}
}

func (b *Bridge) modelsDir() string { return filepath.Join(b.Home, "models") }

func configList(_ context.Context, b *Bridge, _ json.RawMessage, _ func(string, any)) (any, error) {
	l, err := b.configs().List()
	if err != nil {
		return nil, err
	}
	return map[string]any{"configs": l}, nil
}

type problems struct {
	Valid    bool                  `json:"valid"`
	Path     string                `json:"path"`
	Problems []llamaconfig.Problem `json:"problems"`
}

// configValidate checks a config file, by path or by a config's name, and
// reports every problem; a file that cannot be read or parsed is one
// problem of field "".
func configValidate(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("path", p.Path); err != nil {
		return nil, err
	}
	path := p.Path
	if llamaconfig.CheckName(path) == nil {
		if _, err := os.Stat(path); err != nil {
			path = b.configs().Path(path) // a config's name
		}
	}
	out := problems{Path: path, Problems: []llamaconfig.Problem{}}
	c, err := llamaconfig.Load(path)
	if err != nil {
		out.Problems = append(out.Problems, llamaconfig.Problem{Field: "", Message: err.Error()})
		return out, nil
	}
	out.Problems = append(out.Problems, c.Validate()...)
	out.Valid = len(out.Problems) == 0
	return out, nil
}

func configInfo(_ context.Context, b *Bridge, _ json.RawMessage, _ func(string, any)) (any, error) {
	mem, err := llamaconfig.MachineMemory()
	if err != nil {
		return nil, err
	}
	server, _ := exec.LookPath("llama-server") // "" when it is not installed
	return map[string]any{
		"home": b.Home, "configs_dir": b.configs().Dir, "models_dir": b.modelsDir(),
		"defaults_path": llamaconfig.DefaultsPath(b.Home), "memory_bytes": mem, "cpus": runtime.NumCPU(),
		"llama_server": server,
	}, nil
}

func configRemove(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Name    string `json:"name"`
		Confirm bool   `json:"confirm"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	if !p.Confirm {
		return nil, badParams("config.remove needs params.confirm: true")
	}
	if err := b.configs().Remove(p.Name, true); err != nil {
		if errors.Is(err, llamaconfig.ErrNotFound) {
			return nil, err
		}
		return nil, err
	}
	return map[string]any{"removed": true, "name": p.Name}, nil
}

// configDefaults saves what it is given (hf_token, hf_endpoint) and
// answers the defaults in force; the token itself is never echoed.
func configDefaults(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		HFToken    *string `json:"hf_token"`
		HFEndpoint *string `json:"hf_endpoint"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	d, err := llamaconfig.ReadDefaults(b.Home)
	if err != nil {
		return nil, err
	}
	if p.HFToken != nil || p.HFEndpoint != nil {
		d.HFToken = lo.FromPtrOr(p.HFToken, d.HFToken)
		d.HFEndpoint = lo.FromPtrOr(p.HFEndpoint, d.HFEndpoint)
		if err := llamaconfig.WriteDefaults(b.Home, d); err != nil {
			return nil, err
		}
	}
	return map[string]any{
		"hf_token_set": d.HFToken != "", "hf_endpoint": d.Endpoint(),
		"host": llamaconfig.DefaultHost, "n_slots": llamaconfig.DefaultSlots, "tool_style": "auto",
	}, nil
}

func configInit(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Name      string `json:"name"`
		Overwrite bool   `json:"overwrite"`
		llamaconfig.InitParams
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	if err := llamaconfig.CheckName(p.Name); err != nil {
		return nil, badParams("params.name: %v", err)
	}
	if err := required("model_path", p.ModelPath); err != nil {
		return nil, err
	}
	// A path that is not a file here may name one under the models folder
	// (owner/repo/file.gguf), as model.list shows them.
	if _, err := os.Stat(p.ModelPath); err != nil && !filepath.IsAbs(p.ModelPath) {
		if _, err := os.Stat(filepath.Join(b.modelsDir(), p.ModelPath)); err == nil {
			p.ModelPath = filepath.Join(b.modelsDir(), p.ModelPath)
		}
	}
	mem, err := llamaconfig.MachineMemory()
	if err != nil {
		return nil, err
	}
	c, sizing, err := llamaconfig.Init(p.InitParams, mem)
	if err != nil {
		return nil, err
	}
	path, err := b.configs().Write(p.Name, c, p.Overwrite)
	if err != nil {
		return nil, err
	}
	return map[string]any{"name": p.Name, "path": path, "config": c, "sizing": sizing}, nil
}
