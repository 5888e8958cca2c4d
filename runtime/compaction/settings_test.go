package compaction

import "testing"

func TestShouldCompact(t *testing.T) {
	on := Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
	tests := []struct {
		name    string
		context int
		window  int
		s       Settings
		want    bool
	}{
		{"well below", 10000, 200000, on, false},
		{"at the threshold", 200000 - 16384, 200000, on, false},
		{"one past the threshold", 200000 - 16384 + 1, 200000, on, true},
		{"overflowed", 250000, 200000, on, true},
		{"disabled", 250000, 200000, Settings{ReserveTokens: 16384}, false},
		{"unknown window", 250000, 0, on, false},
		{"zero reserve means default", 200000 - 16384 + 1, 200000, Settings{Enabled: true}, true},
		{"zero reserve means default, below", 200000 - 16384, 200000, Settings{Enabled: true}, false},
		{"custom reserve", 7001, 8000, Settings{Enabled: true, ReserveTokens: 1000}, true},
		{"defaults", 128000 - 16384 + 1, 128000, DefaultSettings(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldCompact(tt.context, tt.window, tt.s); got != tt.want {
				t.Errorf("ShouldCompact(%d, %d, %+v) = %v, want %v", tt.context, tt.window, tt.s, got, tt.want)
			}
		})
	}
}

func TestDefaultSettings(t *testing.T) {
	s := DefaultSettings()
	if !s.Enabled || s.ReserveTokens != 16384 || s.KeepRecentTokens != 20000 {
		t.Errorf("DefaultSettings() = %+v, want pi's {true 16384 20000}", s)
	}
}
