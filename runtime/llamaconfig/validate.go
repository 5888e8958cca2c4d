package llamaconfig

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/troupehq/troupe/runtime/gguf"
)

// Problem is one thing wrong with a config, named by its field.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// managed are the flags troupe always sets itself; extra_args may not.
var managed = map[string]string{
	"-m": "model_path", "--model": "model_path", "--host": "host", "--port": "port",
	"-c": "ctx", "--ctx-size": "ctx", "-np": "n_slots", "--parallel": "n_slots",
	"--jinja": "", "--no-jinja": "", "-a": "", "--alias": "",
	"-mm": "mmproj_path", "--mmproj": "mmproj_path", "--api-key": "api_key",
}

// Validate reports every problem of c, in field order; none means valid.
// It reads the model's header, so a path to something that is not a GGUF
// model is a problem too.
func (c Config) Validate() []Problem {
	var ps []Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case c.ModelPath == "":
		add("model_path", "is required")
	default:
		if _, err := gguf.ReadFile(c.ModelPath); err != nil {
			add("model_path", "%v", err)
		}
	}
	if c.MmprojPath != "" {
		if _, err := os.Stat(c.MmprojPath); err != nil {
			add("mmproj_path", "%v", err)
		}
	}
	if c.Ctx < 0 {
		add("ctx", "must be 0 (the model's) or positive, not %d", c.Ctx)
	}
	if c.Slots < 1 {
		add("n_slots", "must be at least 1, not %d", c.Slots)
	} else if c.Ctx > 0 && c.Ctx/c.Slots < 256 {
		add("n_slots", "leaves %d tokens of context per slot (ctx %d / %d slots); want at least 256", c.Ctx/c.Slots, c.Ctx, c.Slots)
	}
	if c.Threads < 0 {
		add("threads", "must be 0 (llama-server's choice) or positive, not %d", c.Threads)
	}
	if g := c.GPULayers; g != "" && g != "auto" && g != "all" {
		if n, err := strconv.Atoi(g); err != nil || n < 0 {
			add("gpu_layers", "must be auto, all or a number of layers, not %q", g)
		}
	}
	for _, t := range c.Fit.TargetMiB {
		if t <= 0 {
			add("fit.target_mib", "must be positive MiB, not %d", t)
		}
	}
	if strings.TrimSpace(c.Host) == "" {
		add("host", "is required")
	}
	if c.Port < 0 || c.Port > 65535 {
		add("port", "must be 0 (any free port) to 65535, not %d", c.Port)
	}
	if c.ServerPath != "" {
		if st, err := os.Stat(c.ServerPath); err != nil {
			add("server_path", "%v", err)
		} else if st.IsDir() || st.Mode()&0o111 == 0 {
			add("server_path", "%s is not an executable file", c.ServerPath)
		}
	}
	for i, a := range c.ExtraArgs {
		flag, _, _ := strings.Cut(a, "=")
		if field, ok := managed[flag]; ok {
			hint := "troupe sets it"
			if field != "" {
				hint = "set " + field + " instead"
			}
			add(fmt.Sprintf("extra_args[%d]", i), "%s is set by troupe: %s", flag, hint)
		}
	}
	ps = append(ps, c.Sampling.problems()...)
	switch c.ToolStyle {
	case "", "native", "text", "auto":
	default:
		add("tool_style", "must be native, text or auto, not %q", c.ToolStyle)
	}
	return ps
}

func (s *Sampling) problems() []Problem {
	if s == nil {
		return nil
	}
	var ps []Problem
	check := func(field string, v *float64, lo, hi float64) {
		if v != nil && (*v < lo || *v > hi) {
			ps = append(ps, Problem{Field: "sampling." + field, Message: fmt.Sprintf("must be between %g and %g, not %g", lo, hi, *v)})
		}
	}
	check("temperature", s.Temperature, 0, 5)
	check("top_p", s.TopP, 0, 1)
	check("min_p", s.MinP, 0, 1)
	check("repeat_penalty", s.RepeatPenalty, 0, 5)
	if s.TopK != nil && *s.TopK < 0 {
		ps = append(ps, Problem{Field: "sampling.top_k", Message: fmt.Sprintf("must be 0 (off) or positive, not %d", *s.TopK)})
	}
	return ps
}
