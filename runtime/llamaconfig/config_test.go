package llamaconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tiny is the repository's one real GGUF model (runtime/gguf's test data).
const tiny = "../gguf/testdata/tiny-llama-random.gguf"

func tinyCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "owner", "repo", "tiny.gguf")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseRefusesUnknownKeysAndFillsDefaults(t *testing.T) {
	if _, err := Parse([]byte("model_path: x\ncontext: 4096\n")); err == nil || !strings.Contains(err.Error(), "context") {
		t.Fatalf("unknown key: %v", err)
	}
	c, err := Parse([]byte("model_path: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != DefaultHost || c.Slots != DefaultSlots {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestValidateNamesEveryProblemWithItsField(t *testing.T) {
	notModel := filepath.Join(t.TempDir(), "notes.gguf")
	if err := os.WriteFile(notModel, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(`
model_path: ` + notModel + `
mmproj_path: /nonexistent/mmproj.gguf
ctx: 512
n_slots: 4
threads: -1
gpu_layers: many
fit: {enabled: true, target_mib: [0]}
port: 70000
server_path: /nonexistent/llama-server
extra_args: [--port=9, --flash-attn, -c]
sampling: {temperature: 9, top_p: 2, top_k: -1}
tool_style: magic
`))
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, p := range c.Validate() {
		fields = append(fields, p.Field)
		if p.Message == "" {
			t.Errorf("%s: no message", p.Field)
		}
	}
	want := []string{"model_path", "mmproj_path", "n_slots", "threads", "gpu_layers", "fit.target_mib", "port",
		"server_path", "extra_args[0]", "extra_args[2]", "sampling.temperature", "sampling.top_p", "sampling.top_k", "tool_style"}
	if !slices.Equal(fields, want) {
		t.Fatalf("problems\n got %q\nwant %q", fields, want)
	}
	good := Config{ModelPath: tiny, Ctx: 1024, Slots: 2, Host: DefaultHost, GPULayers: "all", ToolStyle: "native"}
	if ps := good.Validate(); len(ps) != 0 {
		t.Fatalf("a good config: %+v", ps)
	}
}

func TestArgsAreExplicit(t *testing.T) {
	temp := 0.2
	c := Config{ModelPath: "/m.gguf", Ctx: 2048, Slots: 2, Host: "127.0.0.1", Threads: 4, GPULayers: "all",
		APIKey: "k", Sampling: &Sampling{Temperature: &temp}, ExtraArgs: []string{"--flash-attn"}}
	got := strings.Join(c.Args("qwen", 18080), " ")
	want := "-m /m.gguf -a qwen --host 127.0.0.1 --port 18080 -c 2048 -np 2 --jinja -t 4 -ngl all --api-key k --temp 0.2 --flash-attn"
	if got != want {
		t.Fatalf("args\n got %s\nwant %s", got, want)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "configs")}
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty store: %v %v", l, err)
	}
	c := Config{ModelPath: tiny, Ctx: 1024, Slots: 1, Host: DefaultHost, APIKey: "secret"}
	path, err := s.Write("tiny", c, false)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := s.Write("tiny", c, false); err == nil {
		t.Fatal("overwrote without overwrite")
	}
	got, err := s.Read("tiny")
	if err != nil || got.APIKey != "secret" || got.Ctx != 1024 {
		t.Fatalf("read back %+v %v", got, err)
	}
	if l, _ := s.List(); len(l) != 1 || l[0].Name != "tiny" || l[0].Path != path {
		t.Fatalf("list %+v", l)
	}
	for _, bad := range []string{"../x", ".hidden", "a/b", ""} {
		if _, err := s.Read(bad); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if err := s.Remove("tiny", false); err == nil {
		t.Fatal("removed without confirm")
	}
	if err := s.Remove("tiny", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("tiny"); err == nil {
		t.Fatal("read after remove")
	}
}

func TestInitSizesTheContextFromTheModelAndMemory(t *testing.T) {
	model := tinyCopy(t)
	// The tiny model's KV cache is 32 bytes a token (1 block, n_embd 8, f16):
	// with plenty of memory the training context (4096) caps it.
	c, sz, err := Init(InitParams{ModelPath: model}, 16<<30)
	if err != nil {
		t.Fatal(err)
	}
	if c.Ctx != 4096 || sz.KVBytesPerTok != 32 || sz.TrainCtx != 4096 || c.MmprojPath != "" {
		t.Fatalf("config %+v sizing %+v", c, sz)
	}
	// Memory for the weights and 1000 tokens: 768 (a multiple of 256).
	mem := uint64(float64(sz.ModelBytes+1000*32)/memoryShare) + 8
	if c, _, _ := Init(InitParams{ModelPath: model}, mem); c.Ctx != 768 {
		t.Fatalf("ctx with little memory: %d", c.Ctx)
	}
	mmproj := filepath.Join(filepath.Dir(model), "mmproj-tiny-F16.gguf")
	if err := os.WriteFile(mmproj, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err = Init(InitParams{ModelPath: model, Ctx: 2048, Slots: 2}, 16<<30)
	if err != nil || c.MmprojPath != mmproj || c.Ctx != 2048 || c.Slots != 2 {
		t.Fatalf("with an mmproj beside: %+v %v", c, err)
	}
	if _, _, err := Init(InitParams{ModelPath: mmproj + ".missing"}, 16<<30); err == nil {
		t.Fatal("init on a missing model")
	}
	if m, err := MachineMemory(); err != nil || m == 0 {
		t.Fatalf("machine memory %d %v", m, err)
	}
}

func TestDefaultsRoundTrip(t *testing.T) {
	home := t.TempDir()
	d, err := ReadDefaults(home)
	if err != nil || d.Endpoint() != DefaultHFEndpoint {
		t.Fatalf("no file: %+v %v", d, err)
	}
	if err := WriteDefaults(home, Defaults{HFToken: "hf_x", HFEndpoint: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	d, err = ReadDefaults(home)
	if err != nil || d.HFToken != "hf_x" || d.Endpoint() != "http://127.0.0.1:1" {
		t.Fatalf("read back %+v %v", d, err)
	}
}
