package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Limits that no real model reaches, so that a damaged header cannot make
// the reader allocate or loop without end.
const (
	maxString  = 64 << 20 // a chat template is a few KiB; a merges entry less
	maxArray   = 1 << 28  // vocabularies are under a million entries
	maxEntries = 1 << 20  // metadata keys and tensors each
	maxDims    = 8        // GGML_MAX_DIMS is 4
)

// Value types of metadata, as GGUF numbers them.
const (
	typeUint8 uint32 = iota
	typeInt8
	typeUint16
	typeInt16
	typeUint32
	typeInt32
	typeFloat32
	typeBool
	typeString
	typeArray
	typeUint64
	typeInt64
	typeFloat64
)

// ErrNotGGUF is returned for a file that does not start with the magic.
var ErrNotGGUF = errors.New("not a gguf file")

// ReadFile reads the header of the GGUF file at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	defer f.Close()
	g, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return g, nil
}

// Read reads a GGUF header from r, up to the end of the tensor entries.
func Read(r io.Reader) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 64<<10)}
	var magic [4]byte
	if _, err := io.ReadFull(d.r, magic[:]); err != nil {
		return nil, fmt.Errorf("read magic: %w", err)
	}
	if string(magic[:]) != "GGUF" {
		return nil, ErrNotGGUF
	}
	g := &File{Metadata: map[string]any{}}
	g.Version = d.u32()
	if d.err == nil && (g.Version < 1 || g.Version > 3) {
		return nil, fmt.Errorf("unsupported gguf version %d", g.Version)
	}
	d.v1 = g.Version == 1
	nTensors, nKV := d.count(), d.count()
	if d.err != nil {
		return nil, fmt.Errorf("read header: %w", d.err)
	}
	if nTensors > maxEntries || nKV > maxEntries {
		return nil, fmt.Errorf("header claims %d tensors and %d keys", nTensors, nKV)
	}
	for i := uint64(0); i < nKV; i++ {
		key := d.str()
		v := d.value(d.u32(), 0)
		if d.err != nil {
			return nil, fmt.Errorf("read metadata %d (%q): %w", i, key, d.err)
		}
		g.Metadata[key] = v
	}
	g.Tensors = make([]Tensor, 0, min(nTensors, 4096))
	for i := uint64(0); i < nTensors; i++ {
		t := Tensor{Name: d.str()}
		nDims := d.u32()
		if nDims > maxDims {
			return nil, fmt.Errorf("tensor %q has %d dimensions", t.Name, nDims)
		}
		for range nDims {
			t.Dims = append(t.Dims, d.count())
		}
		t.Type = d.u32()
		t.Offset = d.u64()
		if d.err != nil {
			return nil, fmt.Errorf("read tensor %d: %w", i, d.err)
		}
		g.Tensors = append(g.Tensors, t)
	}
	return g, nil
}

// decoder reads little-endian values, keeping the first error.
type decoder struct {
	r   *bufio.Reader
	v1  bool // version 1 counts and lengths are 32-bit
	err error
	buf [8]byte
}

func (d *decoder) read(n int) []byte {
	if d.err != nil {
		return d.buf[:n] // zeros past the first error; callers check err
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		d.err = err
		clear(d.buf[:])
	}
	return d.buf[:n]
}

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.read(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.read(8)) }

func (d *decoder) count() uint64 {
	if d.v1 {
		return uint64(d.u32())
	}
	return d.u64()
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	if n > maxString {
		d.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	// Copied rather than read into a buffer of the claimed size: a file
	// that lies about a length ends at EOF having allocated what it holds.
	var b strings.Builder
	if _, err := io.CopyN(&b, d.r, int64(n)); err != nil {
		d.err = err
		return ""
	}
	return b.String()
}

// value reads one value of type t. Arrays come back as Array: their
// length, and their elements only when they are few and not nested, since
// a vocabulary's tokens are of no use here and large.
func (d *decoder) value(t uint32, depth int) any {
	switch t {
	case typeUint8:
		return d.read(1)[0]
	case typeInt8:
		return int8(d.read(1)[0])
	case typeUint16:
		return binary.LittleEndian.Uint16(d.read(2))
	case typeInt16:
		return int16(binary.LittleEndian.Uint16(d.read(2)))
	case typeUint32:
		return d.u32()
	case typeInt32:
		return int32(d.u32())
	case typeFloat32:
		return math.Float32frombits(d.u32())
	case typeBool:
		return d.read(1)[0] != 0
	case typeString:
		return d.str()
	case typeUint64:
		return d.u64()
	case typeInt64:
		return int64(d.u64())
	case typeFloat64:
		return math.Float64frombits(d.u64())
	case typeArray:
		return d.array(depth)
	}
	if d.err == nil {
		d.err = fmt.Errorf("unknown value type %d", t)
	}
	return nil
}

// keptElements is how many elements of an array are kept in Array.Values.
const keptElements = 64

func (d *decoder) array(depth int) Array {
	elem, n := d.u32(), d.count()
	if d.err != nil {
		return Array{}
	}
	if n > maxArray || depth > 2 {
		d.err = fmt.Errorf("array of %d elements at depth %d", n, depth)
		return Array{}
	}
	a := Array{Len: n}
	for i := uint64(0); i < n && d.err == nil; i++ {
		v := d.value(elem, depth+1)
		if n <= keptElements && elem != typeArray {
			a.Values = append(a.Values, v)
		}
	}
	return a
}
