package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

// The tiny model of shared/models: llama, 1 block, n_embd 8, 32000 tokens,
// no chat template; llama-server reports n_params 513048 and n_ctx_train 4096.
func TestTinyLlama(t *testing.T) {
	f, err := ReadFile("testdata/tiny-llama-random.gguf")
	if err != nil {
		t.Fatal(err)
	}
	got := f.Summary()
	want := Summary{Architecture: "llama", Name: got.Name, ContextLength: 4096, BlockCount: 1, EmbeddingLength: 8,
		VocabSize: 32000, ParameterCount: 513048, HasChatTemplate: false, TensorCount: got.TensorCount, Version: 3}
	if got != want {
		t.Fatalf("summary\n got %+v\nwant %+v", got, want)
	}
	if got.TensorCount == 0 {
		t.Fatal("no tensors read")
	}
}

func TestRefusesWhatIsNotGGUF(t *testing.T) {
	if _, err := Read(strings.NewReader("PK\x03\x04 not a model")); !errors.Is(err, ErrNotGGUF) {
		t.Fatalf("zip: %v", err)
	}
	b, err := os.ReadFile("testdata/tiny-llama-random.gguf")
	if err != nil {
		t.Fatal(err)
	}
	// Cut anywhere inside the header, the file is an error, never a panic.
	for _, n := range []int{3, 8, 20, 100, 5000, 200000} {
		if _, err := Read(bytes.NewReader(b[:n])); err == nil {
			t.Errorf("header cut at %d read without error", n)
		}
	}
	huge := append([]byte("GGUF"), le32(3)...)
	huge = append(huge, le64(0)...)
	huge = append(huge, le64(1)...)
	huge = append(huge, le64(1<<40)...) // a key claiming a terabyte
	if _, err := Read(bytes.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "string of") {
		t.Errorf("huge key length: %v", err)
	}
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func FuzzRead(f *testing.F) {
	b, err := os.ReadFile("testdata/tiny-llama-random.gguf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:4096])
	f.Add([]byte("GGUF\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Read(bytes.NewReader(data))
		if err == nil {
			_ = g.Summary()
		}
	})
}
