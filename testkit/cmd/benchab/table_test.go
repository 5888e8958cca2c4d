package main

import (
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		vs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(c.vs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.vs, got, c.want)
		}
	}
}

// TestCompareRendersMediansRangesAndGaps: each figure's cell is its median
// and range; a figure only one side measured is "—" on the other, with no
// change; a figure neither measured has no row.
func TestCompareRendersMediansRangesAndGaps(t *testing.T) {
	figs := []figure{
		{key: "wall", label: "wall", unit: "s", decimals: 2},
		{key: "events", label: "committed events", decimals: 0},
		{key: "p50", label: "chunk latency, p50", unit: "µs", decimals: 0},
		{key: "gone", label: "measured by neither"},
	}
	base := []figures{{"wall": 2.0, "events": 100}, {"wall": 1.5, "events": 100}, {"wall": 3.1, "events": 100}}
	head := []figures{{"wall": 1.0, "events": 100, "p50": 90}, {"wall": 1.2, "events": 100, "p50": 70}, {"wall": 0.9, "events": 100, "p50": 80}}
	tb := table{title: "scale, N = 100", base: "8503b4d", head: "3736fe2+", rows: compare(figs, base, head)}
	want := "scale, N = 100\n\n" +
		"| figure | base 8503b4d: median (range) | head 3736fe2+: median (range) | change |\n" +
		"|---|---|---|---|\n" +
		"| wall | 2.00 s (1.50–3.10) | 1.00 s (0.90–1.20) | −50.0 % |\n" +
		"| committed events | 100 (100–100) | 100 (100–100) | 0 % |\n" +
		"| chunk latency, p50 | — | 80 µs (70–90) | — |\n"
	if got := tb.render(); got != want {
		t.Fatalf("table:\n%s\nwant:\n%s", got, want)
	}
}

// TestCellOfOneRun: one run has no range to show.
func TestCellOfOneRun(t *testing.T) {
	if got := cell(figure{unit: "MB"}, []float64{84.4}); got != "84 MB" {
		t.Fatalf("cell %q", got)
	}
	if got := change([]float64{2}, []float64{3}); got != "+50.0 %" {
		t.Fatalf("change %q", got)
	}
	if got := change([]float64{0}, []float64{3}); got != absent {
		t.Fatalf("change from zero %q", got)
	}
}

func TestGrouped(t *testing.T) {
	for in, want := range map[string]string{
		"9999": "9999", "22700": "22,700", "1511904": "1,511,904", "-123456.5": "-123,456.5", "0.35": "0.35",
	} {
		if got := grouped(in); got != want {
			t.Errorf("grouped(%q) = %q, want %q", in, got, want)
		}
	}
}
