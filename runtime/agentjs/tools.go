package agentjs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dop251/goja"
)

// installTools: register_tool, set_system_prompt, set_max_turns,
// register_tools_json and get_tool_results.
func (r *Runtime) installTools(vm *goja.Runtime) error {
	register := func(name, description string, params any) {
		if name == "" {
			throw(vm, errors.New("register_tool: name is required"))
		}
		schema := json.RawMessage(`{"type":"object","properties":{}}`)
		if params != nil {
			b, err := json.Marshal(params)
			if err != nil {
				throw(vm, fmt.Errorf("register_tool %s: parameters: %w", name, err))
			}
			schema = b
		}
		for i, t := range r.setup.Tools {
			if t.Name == name {
				r.setup.Tools[i] = Tool{Name: name, Description: description, Parameters: schema}
				return
			}
		}
		r.setup.Tools = append(r.setup.Tools, Tool{Name: name, Description: description, Parameters: schema})
	}
	fns := map[string]any{
		"register_tool": func(def *goja.Object) {
			if def == nil {
				throw(vm, errors.New("register_tool: want {name, description, parameters, execute}"))
			}
			name := def.Get("name")
			if name == nil || goja.IsUndefined(name) {
				throw(vm, errors.New("register_tool: name is required"))
			}
			exec, ok := goja.AssertFunction(def.Get("execute"))
			if !ok {
				throw(vm, fmt.Errorf("register_tool %s: execute must be a function", name))
			}
			var params any
			if p := def.Get("parameters"); p != nil && !goja.IsUndefined(p) && !goja.IsNull(p) {
				params = p.Export()
			}
			register(name.String(), str(def.Get("description")), params)
			r.executors[name.String()] = exec
		},
		"set_system_prompt": func(prompt string) { r.setup.SystemPrompt = prompt },
		"set_max_turns": func(n int) {
			if n < 1 {
				throw(vm, fmt.Errorf("set_max_turns: want at least 1, not %d", n))
			}
			r.setup.MaxTurns = n
		},
		// register_tools_json registers tools described in JSON, without
		// an execute: a call to one reads "Error: ... has no execute".
		"register_tools_json": func(text string) int {
			var defs []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			}
			if err := json.Unmarshal([]byte(text), &defs); err != nil {
				throw(vm, fmt.Errorf("register_tools_json: want a JSON array of {name, description, parameters}: %w", err))
			}
			for _, d := range defs {
				var params any
				if len(d.Parameters) > 0 {
					params = d.Parameters
				}
				register(d.Name, d.Description, params)
			}
			return len(defs)
		},
		// get_tool_results is the previous turn's results as JSON.
		"get_tool_results": func() string {
			r.mu.Lock()
			defer r.mu.Unlock()
			b, _ := json.Marshal(append([]ToolResult{}, r.lastResults...)) // plain strings
			return string(b)
		},
	}
	for name, fn := range fns {
		if err := vm.Set(name, fn); err != nil {
			return err
		}
	}
	return nil
}

func str(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// installMemory: memory.get(key) and memory.set(key, value), values kept
// as JSON for the run.
func (r *Runtime) installMemory(vm *goja.Runtime) error {
	mem := vm.NewObject()
	if err := mem.Set("get", func(key string) goja.Value {
		v, ok := r.memory[key]
		if !ok {
			return goja.Undefined()
		}
		return vm.ToValue(v)
	}); err != nil {
		return err
	}
	if err := mem.Set("set", func(key string, v goja.Value) {
		b, err := json.Marshal(v.Export())
		if err != nil {
			throw(vm, fmt.Errorf("memory.set %s: %w", key, err))
		}
		var copied any
		_ = json.Unmarshal(b, &copied) // just marshalled
		r.memory[key] = copied
	}); err != nil {
		return err
	}
	return vm.Set("memory", mem)
}

// Call runs tool name's execute with the arguments' JSON text, as the
// spec's wrapper does: a promise is awaited, a throw or rejection reads
// "Error: <message>", an empty result "OK". It returns once the loop is
// idle; err is only ErrInterrupted.
func (r *Runtime) Call(name, args string) (string, error) {
	var (
		result  string
		settled bool
		callErr error
	)
	done := func(s string) { result, settled = s, true }
	r.phase(func(vm *goja.Runtime) {
		clear(r.rejected)
		exec, ok := r.executors[name]
		if !ok {
			if r.registered(name) {
				done(fmt.Sprintf("Error: tool %s has no execute", name))
			} else {
				done(fmt.Sprintf("Error: unknown tool %s", name))
			}
			return
		}
		v, err := exec(goja.Undefined(), vm.ToValue(args))
		if err != nil {
			callErr = err
			done(errorResult(err))
			return
		}
		if _, ok := v.Export().(*goja.Promise); !ok {
			done(resultText(vm, v))
			return
		}
		onOK := func(v goja.Value) { done(resultText(vm, v)) }
		onErr := func(v goja.Value) { done("Error: " + valueMessage(v)) }
		obj := v.ToObject(vm)
		thenFn, _ := goja.AssertFunction(obj.Get("then"))
		if _, err := thenFn(obj, vm.ToValue(onOK), vm.ToValue(onErr)); err != nil {
			callErr = err
		}
	})
	if err := r.interrupted(callErr); err != nil {
		return "", err
	}
	if !settled {
		return fmt.Sprintf("Error: tool %s never finished (its promise did not settle)", name), nil
	}
	return result, nil
}

func (r *Runtime) registered(name string) bool {
	for _, t := range r.setup.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// errorResult is a throw as the model reads it.
func errorResult(err error) string {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return "Error: " + valueMessage(ex.Value())
	}
	return "Error: " + err.Error()
}

// resultText is an execute's value as the model reads it: a string as is,
// nothing as "OK", anything else as JSON.
func resultText(vm *goja.Runtime, v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v) || goja.IsNull(v):
		return "OK"
	case v.ExportType() != nil && v.ExportType().Kind().String() == "string":
		if s := v.String(); s != "" {
			return s
		}
		return "OK"
	}
	stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	out, err := stringify(goja.Undefined(), v)
	if err != nil || goja.IsUndefined(out) {
		return v.String()
	}
	return out.String()
}
