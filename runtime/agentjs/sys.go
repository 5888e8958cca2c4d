package agentjs

import (
	"context"
	"errors"
	"strings"

	"github.com/dop251/goja"

	"github.com/troupehq/troupe/runtime/agentpkg"
)

// installSys: print, print_raw, eprint, input, hugind_version.
func (r *Runtime) installSys(vm *goja.Runtime) error {
	join := func(call goja.FunctionCall) string {
		parts := make([]string, len(call.Arguments))
		for i, a := range call.Arguments {
			parts[i] = a.String()
		}
		return strings.Join(parts, " ")
	}
	out := func(text string, newline bool) {
		if r.cfg.Print != nil {
			r.cfg.Print(text, newline)
		}
	}
	for name, fn := range map[string]any{
		"print":     func(call goja.FunctionCall) goja.Value { out(join(call), true); return goja.Undefined() },
		"print_raw": func(call goja.FunctionCall) goja.Value { out(join(call), false); return goja.Undefined() },
		"eprint": func(call goja.FunctionCall) goja.Value {
			if r.cfg.Progress != nil {
				r.cfg.Progress(join(call))
			}
			return goja.Undefined()
		},
		"input": func(prompt string) string {
			if r.cfg.Input == nil {
				return ""
			}
			return r.cfg.Input(prompt)
		},
		"hugind_version": func() string { return agentpkg.RuntimeVersion },
		"ask_llm": func(prompt string) goja.Value {
			if r.cfg.AskLLM == nil {
				throw(vm, errNoLLM)
			}
			return r.async(vm, func(ctx context.Context) (any, error) { return r.cfg.AskLLM(ctx, prompt) })
		},
	} {
		if err := vm.Set(name, fn); err != nil {
			return err
		}
	}
	return nil
}

var errNoLLM = errors.New("ask_llm: this run has no model")
