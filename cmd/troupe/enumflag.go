package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// The enumerations the commands' flags take.
var (
	approvalModes = event.ApprovalModes()
	crashPolicies = []string{event.CrashResume, event.CrashStop}
	logLevels     = []string{"debug", "info", "warn", "error"}
	logFormats    = []string{"text", "json"}
)

func thinkingLevels() []string {
	var out []string
	for _, l := range modelconfig.AllThinkingLevels() {
		out = append(out, string(l))
	}
	return out
}

// enum is a string flag that takes one of a fixed list of values, so that
// a typo is refused at parse time with the values that would do, instead
// of reaching the engine (or being taken for the default). The shells
// complete it with its values (completeEnums).
type enum struct {
	value   *string
	allowed []string
}

// enumVar defines an enum flag; its usage gets the accepted values
// appended. The default need not be one of them ("" for "not set").
// Matching ignores case and stores the listed form.
func enumVar(fs *pflag.FlagSet, p *string, name, value string, allowed []string, usage string) {
	*p = value
	fs.Var(&enum{value: p, allowed: allowed}, name, fmt.Sprintf("%s (%s)", usage, strings.Join(allowed, "|")))
}

func (e *enum) String() string {
	if e.value == nil {
		return ""
	}
	return *e.value
}

// Type names the value in help: the flag's values are in its usage.
func (e *enum) Type() string { return "string" }

func (e *enum) Set(s string) error {
	for _, a := range e.allowed {
		if strings.EqualFold(s, a) {
			*e.value = a
			return nil
		}
	}
	return fmt.Errorf("want %s", oneOf(e.allowed))
}

// oneOf lists values as a sentence: "a, b or c".
func oneOf(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
