package modelconfig

import (
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"
)

// ThinkingLevel is how much reasoning a thinking model is asked for.
type ThinkingLevel string

// The levels in cycling order.
const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

var thinkingOrder = []ThinkingLevel{
	ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh,
}

// AllThinkingLevels returns every level in cycling order.
func AllThinkingLevels() []ThinkingLevel {
	return slices.Clone(thinkingOrder)
}

// ParseThinkingLevel accepts exactly the indusagi level names.
func ParseThinkingLevel(s string) (ThinkingLevel, error) {
	l := ThinkingLevel(s)
	if l.rank() < 0 {
		return "", fmt.Errorf("thinking level %q: want off, minimal, low, medium, high or xhigh", s)
	}
	return l, nil
}

// UnmarshalYAML rejects unknown levels at load time, with the line.
func (l *ThinkingLevel) UnmarshalYAML(node *yaml.Node) error {
	level, err := ParseThinkingLevel(node.Value)
	if err != nil {
		return lineError(node, err)
	}
	*l = level
	return nil
}

func (l ThinkingLevel) rank() int {
	return slices.Index(thinkingOrder, l)
}

// ThinkingLevels returns the levels m supports in cycling order: only off
// for a model without thinking, otherwise off up to its max_thinking.
func (m Model) ThinkingLevels() []ThinkingLevel {
	top := m.withDefaults().MaxThinking.rank()
	if top < 0 {
		top = 0
	}
	return slices.Clone(thinkingOrder[:top+1])
}

// ClampThinking returns the nearest level m supports: levels above its
// maximum come down to it, and an unknown level is treated as off so a
// stale value in a session can never ask for more than the model allows.
func (m Model) ClampThinking(l ThinkingLevel) ThinkingLevel {
	levels := m.ThinkingLevels()
	r := l.rank()
	if r < 0 {
		return ThinkingOff
	}
	if r >= len(levels) {
		return levels[len(levels)-1]
	}
	return l
}

// NextThinking returns the level after l, wrapping to off. ok is false when
// m has no thinking, matching cycle_thinking_level's null answer.
func (m Model) NextThinking(l ThinkingLevel) (next ThinkingLevel, ok bool) {
	levels := m.ThinkingLevels()
	if len(levels) < 2 {
		return ThinkingOff, false
	}
	i := m.ClampThinking(l).rank()
	return levels[(i+1)%len(levels)], true
}
