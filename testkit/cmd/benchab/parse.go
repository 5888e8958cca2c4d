package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseBenchOutput reads the figures of the benchmark named name (without
// its -GOMAXPROCS suffix) from go test -bench output: its line is the name,
// the iterations, then value-unit pairs.
func parseBenchOutput(out, name string) (figures, error) {
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		if len(fields) < 2 || !isBenchName(fields[0], name) {
			continue
		}
		f := figures{}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q of %q is no number", name, fields[i], fields[i+1])
			}
			f[fields[i+1]] = v
		}
		return f, nil
	}
	return nil, fmt.Errorf("no line of %s in the output:\n%s", name, tail(out, 20))
}

// isBenchName: field is name, or name-N as go test prints it with
// GOMAXPROCS N.
func isBenchName(field, name string) bool {
	rest, ok := strings.CutPrefix(field, name)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	procs, ok := strings.CutPrefix(rest, "-")
	_, err := strconv.Atoi(procs)
	return ok && err == nil
}

// parseScaleTable reads troupe-scale -header's output, a Markdown table's
// head and one row, into figures keyed by column head: each cell's first
// word is its value (the unit after it is the column's). The sessions
// column must say n.
func parseScaleTable(out string, n int) (figures, error) {
	var rows [][]string
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) != 2 || len(rows[0]) != len(rows[1]) {
		return nil, fmt.Errorf("want a table's head and one row of as many cells, got:\n%s", out)
	}
	f := figures{}
	for i, head := range rows[0] {
		word, _, _ := strings.Cut(rows[1][i], " ")
		v, err := strconv.ParseFloat(word, 64)
		if err != nil {
			return nil, fmt.Errorf("column %q: %q is no number", head, rows[1][i])
		}
		f[head] = v
	}
	if f["sessions"] != float64(n) {
		return nil, fmt.Errorf("the row is of %v sessions, want %d", f["sessions"], n)
	}
	return f, nil
}
