package tooltext

// Format identifies which tag pair delimited a tool call block.
type Format uint8

// The tag pairs the spec recognises, in the order of precedence it gives.
const (
	FormatStandard Format = iota + 1 // <tool_call>...</tool_call>
	FormatGemma                      // <|tool_call>...<tool_call|>
	FormatPipe                       // <|tool_call|>...<|/tool_call|>
)

func (f Format) String() string {
	switch f {
	case FormatStandard:
		return "standard"
	case FormatGemma:
		return "gemma"
	case FormatPipe:
		return "pipe"
	}
	return "unknown"
}

// precedence is the spec's order: a later format is used only when no block
// of an earlier one yielded a call.
var precedence = [...]Format{FormatStandard, FormatGemma, FormatPipe}

type tag struct {
	open, close string
	format      Format // zero for thinking
}

const thinkClose = "</think>"

// openTags are all the tags that start a hidden region at top level.
var openTags = [...]tag{
	{open: "<think>", close: thinkClose},
	{open: "<tool_call>", close: "</tool_call>", format: FormatStandard},
	{open: "<|tool_call>", close: "<tool_call|>", format: FormatGemma},
	{open: "<|tool_call|>", close: "<|/tool_call|>", format: FormatPipe},
}

// matchOpen reports the open tag p starts with. When none matches, partial
// says whether p is still a proper prefix of one, so more input could make
// it a tag.
func matchOpen(p []byte) (t *tag, partial bool) {
	for i := range openTags {
		o := openTags[i].open
		if len(p) >= len(o) {
			if string(p[:len(o)]) == o {
				return &openTags[i], false
			}
			continue
		}
		if string(p) == o[:len(p)] {
			partial = true
		}
	}
	return nil, partial
}

// partialSuffix is the length of the longest suffix of p that is a proper
// prefix of s: bytes that may turn into s once more input arrives.
func partialSuffix(p []byte, s string) int {
	for k := min(len(p), len(s)-1); k > 0; k-- {
		if string(p[len(p)-k:]) == s[:k] {
			return k
		}
	}
	return 0
}
