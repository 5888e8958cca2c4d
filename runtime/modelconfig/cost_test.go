package modelconfig

import (
	"math"
	"testing"
)

func TestCost(t *testing.T) {
	sonnet := Model{Pricing: Pricing{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	tests := []struct {
		name  string
		model Model
		usage Usage
		want  CostBreakdown
	}{
		// the indusagi spec's example usage
		{"input and output", sonnet, Usage{Input: 100, Output: 50},
			CostBreakdown{Input: 0.0003, Output: 0.00075, Total: 0.00105}},
		{"every kind", sonnet, Usage{Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000, CacheWrite: 1_000_000},
			CostBreakdown{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, Total: 22.05}},
		{"no usage", sonnet, Usage{}, CostBreakdown{}},
		{"local model is free", Model{}, Usage{Input: 5000, Output: 5000}, CostBreakdown{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.model.Cost(tt.usage)
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"input", got.Input, tt.want.Input},
				{"output", got.Output, tt.want.Output},
				{"cache read", got.CacheRead, tt.want.CacheRead},
				{"cache write", got.CacheWrite, tt.want.CacheWrite},
				{"total", got.Total, tt.want.Total},
			} {
				if math.Abs(f.got-f.want) > 1e-12 {
					t.Errorf("%s: got %v, want %v", f.name, f.got, f.want)
				}
			}
		})
	}
}
