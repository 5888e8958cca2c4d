package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// row is one figure of a table, formatted.
type row struct{ label, base, head, change string }

// table is one N's comparison.
type table struct {
	title      string
	base, head string // the sides' labels
	rows       []row
}

// absent is a side's cell when none of its runs had the figure (its
// revision's benchmark does not measure it).
const absent = "—"

// compare makes a row for each figure either side measured.
func compare(figs []figure, base, head []figures) []row {
	var rows []row
	for _, f := range figs {
		b, h := values(base, f.key), values(head, f.key)
		if len(b) == 0 && len(h) == 0 {
			continue
		}
		rows = append(rows, row{label: f.label, base: cell(f, b), head: cell(f, h), change: change(b, h)})
	}
	return rows
}

// values are the runs' values of key, in run order.
func values(runs []figures, key string) []float64 {
	var vs []float64
	for _, r := range runs {
		if v, ok := r[key]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// median of vs (not empty): the middle value, or the mean of the two.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cell is "median unit (min–max)", the range left out for one run.
func cell(f figure, vs []float64) string {
	if len(vs) == 0 {
		return absent
	}
	num := func(v float64) string { return grouped(fmt.Sprintf("%.*f", f.decimals, v)) }
	s := num(median(vs))
	if f.unit != "" {
		s += " " + f.unit
	}
	if len(vs) > 1 {
		s += " (" + num(slices.Min(vs)) + "–" + num(slices.Max(vs)) + ")"
	}
	return s
}

// grouped puts commas between the thousands of a number's integer part
// from 10,000 up, as BENCHMARKS.md writes them.
func grouped(num string) string {
	sign, rest := "", num
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	whole, frac, hasFrac := strings.Cut(rest, ".")
	if len(whole) < 5 {
		return num
	}
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// change is the head's median against the base's, in percent.
func change(base, head []float64) string {
	if len(base) == 0 || len(head) == 0 {
		return absent
	}
	b, h := median(base), median(head)
	if b == 0 {
		return absent
	}
	pct := (h - b) / b * 100
	switch {
	case math.Abs(pct) < 0.05:
		return "0 %"
	case pct < 0:
		return fmt.Sprintf("−%.1f %%", -pct) // a minus sign, as the tables in BENCHMARKS.md write it
	default:
		return fmt.Sprintf("+%.1f %%", pct)
	}
}

// render is the table in Markdown, under its title.
func (t table) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", t.title)
	fmt.Fprintf(&b, "| figure | base %s: median (range) | head %s: median (range) | change |\n|---|---|---|---|\n", t.base, t.head)
	for _, r := range t.rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.label, r.base, r.head, r.change)
	}
	return b.String()
}
