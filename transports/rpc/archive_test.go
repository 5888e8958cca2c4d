package rpc_test

import (
	"bytes"
	"os"
	"strings"
)

// archive is the txtar format (a comment, then "-- name --" sections),
// read and written here rather than taking a module for forty lines.
type archive struct {
	Comment []byte
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data []byte
}

func parseArchive(path string) (*archive, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ar := &archive{}
	var cur *archiveFile
	for _, line := range strings.SplitAfter(string(b), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			ar.Files = append(ar.Files, archiveFile{Name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			cur = &ar.Files[len(ar.Files)-1]
			continue
		}
		if cur == nil {
			ar.Comment = append(ar.Comment, line...)
		} else {
			cur.Data = append(cur.Data, line...)
		}
	}
	return ar, nil
}

func (ar *archive) format() []byte {
	var b bytes.Buffer
	b.Write(ar.Comment)
	for _, f := range ar.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(f.Data)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
