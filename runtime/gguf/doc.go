// Package gguf reads the header of a GGUF model file (llama.cpp's format):
// its metadata and its tensors' shapes, without reading the weights. It is
// what model.show reports and what config.init sizes a context from.
//
// A GGUF file is a little-endian header: the magic "GGUF", a version
// (1 to 3), the tensor count, the metadata count, the metadata key/values,
// then one entry per tensor (name, dimensions, type, offset). The weights
// follow and are never read here. Every length read is checked against
// limits, so a damaged or hostile file gives an error, not an allocation
// of its claimed size.
//
// What it reads: architecture, context length, blocks, vocabulary,
// parameters and the chat template; the summary is what model.show reports.
package gguf
