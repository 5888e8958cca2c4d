package compaction

// Defaults are pi's DEFAULT_COMPACTION_SETTINGS, which indusagi shares:
// compact when the context exceeds the window minus 16384 tokens, keeping
// about 20000 recent tokens (reference/stdio-protocols.md section 1.10).
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// Settings tune automatic compaction. The JSON names are those of the
// "compaction" object in pi's settings.json.
type Settings struct {
	// Enabled turns automatic compaction on. It is consulted only by
	// ShouldCompact: a manual compact command plans regardless.
	Enabled bool `json:"enabled"`
	// ReserveTokens is the room left free for the next reply (and for the
	// summary request). Zero or less means DefaultReserveTokens.
	ReserveTokens int `json:"reserveTokens"`
	// KeepRecentTokens is roughly how much recent conversation survives
	// verbatim. Zero or less means DefaultKeepRecentTokens.
	KeepRecentTokens int `json:"keepRecentTokens"`
}

// DefaultSettings returns automatic compaction enabled with the defaults.
func DefaultSettings() Settings {
	return Settings{
		Enabled:          true,
		ReserveTokens:    DefaultReserveTokens,
		KeepRecentTokens: DefaultKeepRecentTokens,
	}
}

func (s Settings) reserveTokens() int {
	if s.ReserveTokens <= 0 {
		return DefaultReserveTokens
	}
	return s.ReserveTokens
}

func (s Settings) keepRecentTokens() int {
	if s.KeepRecentTokens <= 0 {
		return DefaultKeepRecentTokens
	}
	return s.KeepRecentTokens
}

// ShouldCompact reports whether a context of contextTokens has grown past
// contextWindow minus the reserve, as pi's shouldCompact does. An unknown
// (non-positive) window never triggers: without it there is no threshold,
// and an overflow error from the provider is the remaining signal.
func ShouldCompact(contextTokens, contextWindow int, s Settings) bool {
	if !s.Enabled || contextWindow <= 0 {
		return false
	}
	return contextTokens > contextWindow-s.reserveTokens()
}
