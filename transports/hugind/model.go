package hugind

import (
	"context"
	"encoding/json"

	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/modelstore"
)

func (b *Bridge) models() modelstore.Store { return modelstore.Store{Dir: b.modelsDir()} }

func modelList(_ context.Context, b *Bridge, _ json.RawMessage, _ func(string, any)) (any, error) {
	l, err := b.models().List()
	if err != nil {
		return nil, err
	}
	return map[string]any{"repos": l}, nil
}

func modelShow(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Repo string `json:"repo"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("repo", p.Repo); err != nil {
		return nil, err
	}
	files, err := b.models().Show(p.Repo)
	if err != nil {
		return nil, err
	}
	return map[string]any{"repo": p.Repo, "path": b.models().RepoDir(p.Repo), "files": files}, nil
}

// modelAdd downloads from the endpoint of $TROUPE_HOME/llama.yml with its
// token, reporting status at the start and end and progress in between.
func modelAdd(ctx context.Context, b *Bridge, raw json.RawMessage, emit func(string, any)) (any, error) {
	var p struct {
		Repo  string   `json:"repo"`
		Files []string `json:"files"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("repo", p.Repo); err != nil {
		return nil, err
	}
	if len(p.Files) == 0 {
		return nil, badParams("params.files must name at least one file")
	}
	d, err := llamaconfig.ReadDefaults(b.Home)
	if err != nil {
		return nil, err
	}
	emit("status", map[string]any{"message": "model.add.start", "repo": p.Repo, "files": p.Files})
	added, err := b.models().Add(ctx, modelstore.Downloader{Endpoint: d.Endpoint(), Token: d.HFToken}, p.Repo, p.Files,
		func(pr modelstore.Progress) { emit("progress", pr) })
	if err != nil {
		return nil, err
	}
	emit("status", map[string]any{"message": "model.add.finish", "repo": p.Repo})
	return map[string]any{"repo": p.Repo, "files": added}, nil
}

func modelRemove(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p modelstore.RemoveParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("repo", p.Repo); err != nil {
		return nil, err
	}
	return b.models().Remove(p)
}
