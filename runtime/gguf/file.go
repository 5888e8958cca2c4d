package gguf

// File is a GGUF header: its metadata and its tensor entries.
type File struct {
	Version  uint32
	Metadata map[string]any
	Tensors  []Tensor
}

// Tensor is one tensor's entry: its shape and type, not its data.
type Tensor struct {
	Name   string
	Dims   []uint64
	Type   uint32
	Offset uint64
}

// Array is an array-valued metadata entry: its length, and its elements
// when it has at most 64 of them (not a vocabulary's tokens).
type Array struct {
	Len    uint64
	Values []any
}

// Summary is what a person asks of a model file.
type Summary struct {
	Architecture    string `json:"architecture"`
	Name            string `json:"name,omitempty"`
	ContextLength   uint64 `json:"context_length"`
	BlockCount      uint64 `json:"block_count"`
	EmbeddingLength uint64 `json:"embedding_length"`
	VocabSize       uint64 `json:"vocab_size"`
	ParameterCount  uint64 `json:"parameter_count"`
	HasChatTemplate bool   `json:"has_chat_template"`
	TensorCount     int    `json:"tensor_count"`
	Version         uint32 `json:"gguf_version"`
}

// Summary reads the usual keys: general.architecture, and the
// architecture's context_length, block_count and embedding_length; the
// vocabulary is the token list's length, the parameters are counted from
// the tensors' shapes.
func (f *File) Summary() Summary {
	arch := f.String("general.architecture")
	s := Summary{
		Architecture:    arch,
		Name:            f.String("general.name"),
		ContextLength:   f.Uint(arch + ".context_length"),
		BlockCount:      f.Uint(arch + ".block_count"),
		EmbeddingLength: f.Uint(arch + ".embedding_length"),
		VocabSize:       f.Uint(arch + ".vocab_size"),
		TensorCount:     len(f.Tensors),
		Version:         f.Version,
	}
	if tokens, ok := f.Metadata["tokenizer.ggml.tokens"].(Array); ok {
		s.VocabSize = tokens.Len
	}
	_, s.HasChatTemplate = f.Metadata["tokenizer.chat_template"]
	for _, t := range f.Tensors {
		n := uint64(1)
		for _, d := range t.Dims {
			n *= d
		}
		s.ParameterCount += n
	}
	return s
}

// String is a string-valued key's value, or "".
func (f *File) String(key string) string {
	s, _ := f.Metadata[key].(string)
	return s
}

// Uint is an integer-valued key's value as unsigned, or 0 when it is
// missing, negative or not an integer.
func (f *File) Uint(key string) uint64 {
	switch v := f.Metadata[key].(type) {
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case uint64:
		return v
	case int8:
		return uint64(max(v, 0))
	case int16:
		return uint64(max(v, 0))
	case int32:
		return uint64(max(v, 0))
	case int64:
		return uint64(max(v, 0))
	}
	return 0
}
