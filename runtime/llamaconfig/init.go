package llamaconfig

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/troupehq/troupe/runtime/gguf"
)

// InitParams are config.init's: a model, and what to override.
type InitParams struct {
	ModelPath    string `json:"model_path"`
	Ctx          int    `json:"ctx,omitempty"`
	MmprojPath   string `json:"mmproj_path,omitempty"`
	Slots        int    `json:"n_slots,omitempty"`
	EnableFit    bool   `json:"enable_fit,omitempty"`
	FitTargetMiB []int  `json:"fit_target_mib,omitempty"`
}

// Sizing explains the context init chose.
type Sizing struct {
	MemoryBytes   uint64 `json:"memory_bytes"`
	ModelBytes    uint64 `json:"model_bytes"`
	KVBytesPerTok uint64 `json:"kv_bytes_per_token"`
	TrainCtx      uint64 `json:"train_ctx"`
	Ctx           int    `json:"ctx"`
}

// memoryShare is the part of the machine's memory a config may plan for:
// the rest is left to the system, troupe and the sessions' tools.
const memoryShare = 0.75

// Init makes a config for a model: the context is the largest (a multiple
// of 256, at most the model's training context) whose KV cache fits in
// three quarters of memory beside the weights; an mmproj file next to the
// model is used unless one is given. memory is the machine's total bytes.
func Init(p InitParams, memory uint64) (Config, Sizing, error) {
	if p.ModelPath == "" {
		return Config{}, Sizing{}, fmt.Errorf("model_path is required")
	}
	abs, err := filepath.Abs(p.ModelPath)
	if err != nil {
		return Config{}, Sizing{}, fmt.Errorf("model path: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Config{}, Sizing{}, fmt.Errorf("model: %w", err)
	}
	f, err := gguf.ReadFile(abs)
	if err != nil {
		return Config{}, Sizing{}, err
	}
	c := Config{ModelPath: abs, MmprojPath: p.MmprojPath, Slots: max(p.Slots, DefaultSlots), Host: DefaultHost,
		Fit: Fit{Enabled: p.EnableFit, TargetMiB: p.FitTargetMiB}, ToolStyle: "auto"}
	if c.MmprojPath == "" {
		c.MmprojPath = findMmproj(abs)
	}
	sz := Sizing{MemoryBytes: memory, ModelBytes: uint64(st.Size()), KVBytesPerTok: kvBytesPerToken(f),
		TrainCtx: f.Summary().ContextLength}
	c.Ctx = p.Ctx
	if c.Ctx == 0 {
		c.Ctx = chooseCtx(sz)
	}
	sz.Ctx = c.Ctx
	return c, sz, nil
}

func chooseCtx(sz Sizing) int {
	const step, floor = 256, 512
	budget := int64(float64(sz.MemoryBytes)*memoryShare) - int64(sz.ModelBytes)
	ctx := uint64(floor)
	if sz.KVBytesPerTok > 0 && budget > 0 {
		ctx = uint64(budget) / sz.KVBytesPerTok
	}
	if sz.TrainCtx > 0 && ctx > sz.TrainCtx {
		ctx = sz.TrainCtx
	}
	ctx = ctx / step * step
	return int(max(ctx, floor))
}

// kvBytesPerToken is the f16 KV cache one token takes: a key and a value
// of n_embd * n_head_kv / n_head per block, two bytes each.
func kvBytesPerToken(f *gguf.File) uint64 {
	arch := f.String("general.architecture")
	embd, heads, kvHeads := f.Uint(arch+".embedding_length"), f.Uint(arch+".attention.head_count"), f.Uint(arch+".attention.head_count_kv")
	if heads == 0 {
		heads = 1
	}
	if kvHeads == 0 {
		kvHeads = heads
	}
	return 2 * f.Uint(arch+".block_count") * embd * kvHeads / heads * 2
}

// findMmproj is the first *.gguf beside model whose name says mmproj.
func findMmproj(model string) string {
	des, err := os.ReadDir(filepath.Dir(model))
	if err != nil {
		return ""
	}
	for _, de := range des {
		n := strings.ToLower(de.Name())
		if strings.Contains(n, "mmproj") && strings.HasSuffix(n, ".gguf") && !de.IsDir() {
			return filepath.Join(filepath.Dir(model), de.Name())
		}
	}
	return ""
}

// MachineMemory is the machine's total memory from /proc/meminfo.
func MachineMemory() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read memory size: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse MemTotal: %w", err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no MemTotal in /proc/meminfo")
}
