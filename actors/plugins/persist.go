package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/yaml.v3"
)

// fileMu serialises this process's edits of config.yml.
var fileMu sync.Mutex

// saveSpec adds spec to (or, with remove, takes name out of) the kind's
// list in $home/config.yml, keeping every other key and comment as it is.
// The file is replaced whole (written beside it, then renamed).
func saveSpec(home, kind string, spec Spec, remove bool) error {
	fileMu.Lock()
	defer fileMu.Unlock()
	path := filepath.Join(home, ConfigFile)
	var doc yaml.Node
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	default:
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: not a mapping", path)
	}
	key := kind + "s"
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			list = root.Content[i+1]
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		list = &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, list)
	}
	kept := list.Content[:0]
	for _, n := range list.Content {
		var s Spec
		if n.Decode(&s) == nil && s.Name == spec.Name {
			continue
		}
		kept = append(kept, n)
	}
	list.Content = kept
	if !remove {
		var n yaml.Node
		if err := n.Encode(spec); err != nil {
			return fmt.Errorf("encode %s %s: %w", kind, spec.Name, err)
		}
		list.Content = append(list.Content, &n)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}
