package agentjs

import (
	"fmt"
	"os"
	"slices"

	"github.com/dop251/goja"
)

// installFS: the synchronous fs object, confined to the declared paths.
func (r *Runtime) installFS(vm *goja.Runtime) error {
	fsObj := vm.NewObject()
	check := func(path string, write bool) string {
		real, err := r.checkPath(path, write)
		if err != nil {
			throw(vm, err)
		}
		return real
	}
	fns := map[string]any{
		"read_text": func(path string) string {
			b, err := os.ReadFile(check(path, false))
			if err != nil {
				throw(vm, fmt.Errorf("fs.read_text: %w", err))
			}
			return string(b)
		},
		"write_text": func(path, text string) bool {
			if err := os.WriteFile(check(path, true), []byte(text), 0o644); err != nil {
				throw(vm, fmt.Errorf("fs.write_text: %w", err))
			}
			return true
		},
		"list_dir": func(path string) []string {
			entries, err := os.ReadDir(check(path, false))
			if err != nil {
				throw(vm, fmt.Errorf("fs.list_dir: %w", err))
			}
			names := make([]string, 0, len(entries))
			for _, e := range entries {
				names = append(names, e.Name())
			}
			slices.Sort(names)
			return names
		},
		"cwd": func() string { return r.cwd() },
		"is_dir": func(path string) bool {
			fi, err := os.Stat(check(path, false))
			return err == nil && fi.IsDir()
		},
		"mkdir": func(path string) bool {
			if err := os.MkdirAll(check(path, true), 0o755); err != nil {
				throw(vm, fmt.Errorf("fs.mkdir: %w", err))
			}
			return true
		},
	}
	for name, fn := range fns {
		if err := fsObj.Set(name, fn); err != nil {
			return err
		}
	}
	return vm.Set("fs", fsObj)
}
