package modelconfig

import "testing"

var (
	plain    = Model{ID: "plain"}
	thinker  = Model{ID: "thinker", Thinking: true}
	codexMax = Model{ID: "codex", Thinking: true, MaxThinking: ThinkingXHigh}
	lowOnly  = Model{ID: "low", Thinking: true, MaxThinking: ThinkingLow}
)

func TestParseThinkingLevel(t *testing.T) {
	for _, l := range AllThinkingLevels() {
		got, err := ParseThinkingLevel(string(l))
		requireNoError(t, err)
		requireEqual(t, got, l)
	}
	for _, bad := range []string{"", "High", "max", " low"} {
		_, err := ParseThinkingLevel(bad)
		requireErrorContains(t, err, "want off, minimal, low, medium, high or xhigh")
	}
}

func TestAllThinkingLevelsOrder(t *testing.T) {
	requireEqual(t, AllThinkingLevels(), []ThinkingLevel{"off", "minimal", "low", "medium", "high", "xhigh"})
	AllThinkingLevels()[0] = "changed"
	requireEqual(t, AllThinkingLevels()[0], ThinkingOff)
}

func TestThinkingLevels(t *testing.T) {
	tests := []struct {
		model Model
		want  []ThinkingLevel
	}{
		{plain, []ThinkingLevel{"off"}},
		{thinker, []ThinkingLevel{"off", "minimal", "low", "medium", "high"}},
		{codexMax, []ThinkingLevel{"off", "minimal", "low", "medium", "high", "xhigh"}},
		{lowOnly, []ThinkingLevel{"off", "minimal", "low"}},
	}
	for _, tt := range tests {
		t.Run(tt.model.ID, func(t *testing.T) {
			requireEqual(t, tt.model.ThinkingLevels(), tt.want)
		})
	}
}

func TestClampThinking(t *testing.T) {
	tests := []struct {
		name  string
		model Model
		in    ThinkingLevel
		want  ThinkingLevel
	}{
		{"plain model only off", plain, ThinkingHigh, ThinkingOff},
		{"plain model off", plain, ThinkingOff, ThinkingOff},
		{"supported kept", thinker, ThinkingMedium, ThinkingMedium},
		{"xhigh down to high", thinker, ThinkingXHigh, ThinkingHigh},
		{"xhigh kept where supported", codexMax, ThinkingXHigh, ThinkingXHigh},
		{"down to a low maximum", lowOnly, ThinkingHigh, ThinkingLow},
		{"unknown level is off", thinker, "max", ThinkingOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireEqual(t, tt.model.ClampThinking(tt.in), tt.want)
		})
	}
}

func TestNextThinking(t *testing.T) {
	tests := []struct {
		name  string
		model Model
		in    ThinkingLevel
		want  ThinkingLevel
		ok    bool
	}{
		{"plain model cannot cycle", plain, ThinkingOff, ThinkingOff, false},
		{"off to minimal", thinker, ThinkingOff, ThinkingMinimal, true},
		{"medium to high", thinker, ThinkingMedium, ThinkingHigh, true},
		{"high wraps to off", thinker, ThinkingHigh, ThinkingOff, true},
		{"high to xhigh where supported", codexMax, ThinkingHigh, ThinkingXHigh, true},
		{"xhigh wraps to off", codexMax, ThinkingXHigh, ThinkingOff, true},
		{"above the maximum clamps first", lowOnly, ThinkingHigh, ThinkingOff, true},
		{"unknown starts from off", thinker, "bogus", ThinkingMinimal, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.model.NextThinking(tt.in)
			requireEqual(t, ok, tt.ok)
			requireEqual(t, got, tt.want)
		})
	}
}
