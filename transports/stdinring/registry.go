package stdinring

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Bounds on what rings may hold, so producers cannot grow the daemon
// without limit.
const (
	DefaultCapacity = 1 << 20  // bytes kept in memory when open names none
	MaxCapacity     = 64 << 20 // the most one ring may keep in memory
	DefaultFileCap  = 10 << 20 // file mode's soft cap when open names none
	MaxFileCap      = 1 << 30
	// DefaultBudget bounds the memory of all rings together.
	DefaultBudget = 256 << 20
)

// Errors Open and Get answer with; the REST side maps both to 409.
var (
	ErrAlreadyOpen = errors.New("stdin is already open")
	ErrNotOpen     = errors.New("stdin is not open")
	ErrBudget      = errors.New("stdin rings' memory budget is exhausted")
)

// Options open a ring.
type Options struct {
	Mode          string `json:"mode"`
	CapacityBytes int64  `json:"capacityBytes"`
	FileCapBytes  int64  `json:"fileCapBytes"`
}

// Registry holds the rings by session id.
type Registry struct {
	dir    string // file mode's files go here
	budget int64

	mu    sync.Mutex
	rings map[string]*Ring
	used  int64
}

// NewRegistry keeps file mode's mirrors in dir; budget bounds the memory
// of all rings (0: DefaultBudget).
func NewRegistry(dir string, budget int64) *Registry {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Registry{dir: dir, budget: budget, rings: map[string]*Ring{}}
}

// Open allocates session id's ring.
func (g *Registry) Open(id string, o Options) (*Ring, error) {
	if o.Mode == "" {
		o.Mode = ModeMemory
	}
	if o.Mode != ModeMemory && o.Mode != ModeFile {
		return nil, fmt.Errorf("mode must be memory or file, not %q", o.Mode)
	}
	if o.CapacityBytes < 0 || o.FileCapBytes < 0 {
		return nil, errors.New("capacityBytes and fileCapBytes must not be negative")
	}
	if o.CapacityBytes == 0 {
		o.CapacityBytes = DefaultCapacity
	}
	o.CapacityBytes = min(o.CapacityBytes, MaxCapacity)
	if o.Mode == ModeFile && o.FileCapBytes == 0 {
		o.FileCapBytes = DefaultFileCap
	}
	o.FileCapBytes = min(o.FileCapBytes, MaxFileCap)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rings[id] != nil {
		return nil, ErrAlreadyOpen
	}
	if g.used+o.CapacityBytes > g.budget {
		return nil, fmt.Errorf("%w: %d of %d bytes in use", ErrBudget, g.used, g.budget)
	}
	var f *os.File
	if o.Mode == ModeFile {
		var err error
		if f, err = g.createFile(id); err != nil {
			return nil, err
		}
	} else {
		o.FileCapBytes = 0
	}
	r := newRing(o.Mode, o.CapacityBytes, f, o.FileCapBytes)
	g.rings[id] = r
	g.used += o.CapacityBytes
	return r, nil
}

func (g *Registry) createFile(id string) (*os.File, error) {
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create stdin directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(g.dir, filepath.Base(id)+".stdin"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create stdin mirror: %w", err)
	}
	return f, nil
}

// Get returns session id's ring, ErrNotOpen when there is none.
func (g *Registry) Get(id string) (*Ring, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.rings[id]
	if r == nil {
		return nil, ErrNotOpen
	}
	return r, nil
}

// Drop frees session id's ring and removes its file; readers waiting on
// it keep their reference until they return.
func (g *Registry) Drop(id string) error {
	g.mu.Lock()
	r := g.rings[id]
	if r != nil {
		delete(g.rings, id)
		g.used -= int64(len(r.buf))
	}
	g.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.close()
}

// Sweep drops the rings of the sessions keep refuses (those no longer
// live) and reports how many went.
func (g *Registry) Sweep(keep func(id string) bool) int {
	g.mu.Lock()
	var gone []string
	for id := range g.rings {
		if !keep(id) {
			gone = append(gone, id)
		}
	}
	g.mu.Unlock()
	for _, id := range gone {
		_ = g.Drop(id)
	}
	return len(gone)
}

// Close drops every ring.
func (g *Registry) Close() error {
	g.mu.Lock()
	ids := slices.Collect(maps.Keys(g.rings))
	g.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, g.Drop(id))
	}
	return errors.Join(errs...)
}
