package agentjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/eventloop"

	"github.com/troupehq/troupe/runtime/agentpkg"
)

// Config is what the runtime may do and where its output goes.
type Config struct {
	// Dir is the package's folder: the entry point's base, always readable.
	Dir string
	// Cwd is the run's directory: fs.cwd(), and the base of relative
	// permission paths and of commands.
	Cwd         string
	Permissions agentpkg.Permissions
	// Env is added to the environment of the commands the agent runs.
	Env map[string]string
	// Print receives print (newline true) and print_raw output.
	Print func(text string, newline bool)
	// Progress receives eprint lines.
	Progress func(line string)
	// Input answers input(prompt); nil answers "".
	Input func(prompt string) string
	// AskLLM answers ask_llm(prompt); nil makes it throw.
	AskLLM func(ctx context.Context, prompt string) (string, error)
	// HTTPClient serves fetch, http_get and http_post; nil: a default one.
	HTTPClient *http.Client
}

// Tool is a tool the script registered.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Setup is what the entry point registered.
type Setup struct {
	Tools        []Tool
	SystemPrompt string
	MaxTurns     int // 0: not set
}

// ToolResult is one result get_tool_results reports.
type ToolResult struct {
	Name   string `json:"name"`
	Result string `json:"result"`
}

// holdFor keeps the loop waiting while an asynchronous operation runs; the
// operation clears it long before.
const holdFor = 24 * time.Hour

// Runtime is one agent's VM and event loop.
type Runtime struct {
	cfg    Config
	perms  perms
	loop   *eventloop.EventLoop
	vm     *goja.Runtime // for Interrupt only, outside phases
	ctx    context.Context
	cancel context.CancelFunc
	ops    sync.WaitGroup // asynchronous operations' goroutines

	// Written on the loop during phases, read by the phase's caller after.
	setup     Setup
	executors map[string]goja.Callable
	memory    map[string]any
	rejected  map[*goja.Promise]goja.Value

	// The loop's own timer functions, kept before a script can replace
	// them: async holds the loop open with one.
	setTimeout, clearTimeout goja.Callable

	mu          sync.Mutex
	lastResults []ToolResult
	stopped     bool
}

// New builds the VM with its globals.
func New(cfg Config) (*Runtime, error) {
	p, err := newPerms(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 5 * time.Minute}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runtime{cfg: cfg, perms: p, ctx: ctx, cancel: cancel, executors: map[string]goja.Callable{},
		memory: map[string]any{}, rejected: map[*goja.Promise]goja.Value{}}
	r.loop = eventloop.NewEventLoop(eventloop.EnableConsole(false))
	var installErr error
	r.loop.Run(func(vm *goja.Runtime) {
		r.vm = vm
		vm.SetFieldNameMapper(goja.UncapFieldNameMapper())
		vm.GlobalObject().Delete("require")
		r.setTimeout, _ = goja.AssertFunction(vm.Get("setTimeout"))
		r.clearTimeout, _ = goja.AssertFunction(vm.Get("clearTimeout"))
		vm.SetPromiseRejectionTracker(r.trackRejection)
		installErr = r.install(vm)
	})
	if installErr != nil {
		cancel()
		return nil, fmt.Errorf("install globals: %w", installErr)
	}
	return r, nil
}

// install sets every global.
func (r *Runtime) install(vm *goja.Runtime) error {
	for _, f := range []func(*goja.Runtime) error{r.installSys, r.installFS, r.installShell, r.installNet, r.installTools, r.installMemory} {
		if err := f(vm); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runtime) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		r.rejected[p] = p.Result()
		return
	}
	delete(r.rejected, p)
}

// Load evaluates the entry point (a script; path relative to Dir) and
// waits until the loop is idle. A throw at top level, a syntax error and a
// promise rejected with no handler are errors.
func (r *Runtime) Load(entry string) (Setup, error) {
	path := entry
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.cfg.Dir, entry)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return Setup{}, fmt.Errorf("read entry point: %w", err)
	}
	var evalErr error
	r.phase(func(vm *goja.Runtime) {
		_, evalErr = vm.RunScript(filepath.Base(path), string(src))
	})
	if err := r.interrupted(evalErr); err != nil {
		return Setup{}, err
	}
	if evalErr != nil {
		return Setup{}, fmt.Errorf("evaluate %s: %s", entry, describe(evalErr))
	}
	if err := r.unhandled(); err != nil {
		return Setup{}, fmt.Errorf("evaluate %s: %w", entry, err)
	}
	return r.setup, nil
}

// phase runs fn on the loop and returns once the loop is idle or stopped.
func (r *Runtime) phase(fn func(*goja.Runtime)) {
	r.mu.Lock()
	stopped := r.stopped
	r.mu.Unlock()
	if stopped {
		return
	}
	r.loop.Run(fn)
}

func (r *Runtime) unhandled() error {
	for _, v := range r.rejected {
		clear(r.rejected)
		return fmt.Errorf("unhandled promise rejection: %s", valueMessage(v))
	}
	return nil
}

// ErrInterrupted wraps the reason a phase was interrupted.
var ErrInterrupted = errors.New("interrupted")

// interrupted turns an interrupted phase into ErrInterrupted with its
// reason; a phase stopped before it began counts too.
func (r *Runtime) interrupted(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return fmt.Errorf("%w: %v", ErrInterrupted, ie.Value())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return fmt.Errorf("%w: %v", ErrInterrupted, context.Cause(r.ctx))
	}
	return nil
}

// Interrupt stops the running phase (or the next one) for reason: the JS
// under way throws, the loop stops, commands are killed and requests
// aborted. Safe from any goroutine; the runtime is done with after it.
func (r *Runtime) Interrupt(reason string) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.stopped = true
	r.mu.Unlock()
	r.cancel()
	r.vm.Interrupt(reason)
	r.loop.StopNoWait()
	// The loop may be between Run's setRunning and its wait: a stop
	// queued on it lands either way.
	r.loop.RunOnLoop(func(*goja.Runtime) { r.loop.StopNoWait() })
}

// Close ends what the runtime still runs. Call it once no phase runs.
func (r *Runtime) Close() {
	r.cancel()
	r.ops.Wait()
	r.loop.Terminate()
}

// SetLastResults is what get_tool_results returns in the next phases.
func (r *Runtime) SetLastResults(res []ToolResult) {
	r.mu.Lock()
	r.lastResults = append([]ToolResult(nil), res...)
	r.mu.Unlock()
}

// async runs work off the loop and returns a promise of its result; the
// loop waits for it.
func (r *Runtime) async(vm *goja.Runtime, work func(ctx context.Context) (any, error)) goja.Value {
	p, resolve, reject := vm.NewPromise()
	// A timer made as JS's setTimeout makes it counts at once, even from
	// inside a timer callback; the loop's SetTimeout counts only once its
	// queue is read, after Run may already have found nothing left.
	hold, err := r.setTimeout(goja.Undefined(), vm.ToValue(func() {}), vm.ToValue(holdFor.Milliseconds()))
	if err != nil {
		panic(err)
	}
	r.ops.Add(1)
	go func() {
		defer r.ops.Done()
		v, err := work(r.ctx)
		r.loop.RunOnLoop(func(vm *goja.Runtime) {
			_, _ = r.clearTimeout(goja.Undefined(), hold)
			if err != nil {
				_ = reject(vm.NewGoError(err))
				return
			}
			_ = resolve(v)
		})
	}()
	return vm.ToValue(p)
}

// throw raises a JavaScript Error with err's message: a plain Error, so
// scripts see e.name "Error" and e.message as for any other.
func throw(vm *goja.Runtime, err error) {
	ctor, ok := goja.AssertConstructor(vm.Get("Error"))
	if !ok {
		panic(vm.NewGoError(err))
	}
	obj, cerr := ctor(nil, vm.ToValue(err.Error()))
	if cerr != nil {
		panic(vm.NewGoError(err))
	}
	panic(obj)
}

// describe is an error from the VM as a line: an exception's value and
// where it was thrown.
func describe(err error) string {
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return err.Error()
	}
	msg := valueMessage(ex.Value())
	if o, ok := ex.Value().(*goja.Object); ok {
		if name := o.Get("name"); name != nil && !goja.IsUndefined(name) {
			msg = name.String() + ": " + msg
		}
	}
	// Where in the script: the first frame that is not native code.
	for _, f := range ex.Stack() {
		if pos := f.Position(); f.SrcName() != "" && pos.Line > 0 {
			return fmt.Sprintf("%s (%s:%d:%d)", msg, f.SrcName(), pos.Line, pos.Column)
		}
	}
	return msg
}

// valueMessage is a thrown value as "Error: message" reads it.
func valueMessage(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if o, ok := v.(*goja.Object); ok {
		if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
			return m.String()
		}
	}
	return v.String()
}
