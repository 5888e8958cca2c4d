package tools

import (
	"bytes"
	"io"
	"os"
)

// sniffLen is how much of a file is inspected to decide it is binary; git
// uses the same 8000 bytes.
const sniffLen = 8000

// skippedDirs are never descended into by glob and grep unless the search
// starts inside one: version-control internals and dependency trees drown
// the results and cost seconds to walk.
var skippedDirs = map[string]bool{
	".git":         true,
	".hg":          true,
	".svn":         true,
	"node_modules": true,
}

// looksBinary reports whether head, the start of a file, holds a NUL byte.
func looksBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0
}

// fileIsBinary opens path and sniffs its start.
func fileIsBinary(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return looksBinary(head[:n]), nil
}
