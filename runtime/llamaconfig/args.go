package llamaconfig

import (
	"strconv"
	"strings"

	"github.com/samber/lo"
)

// Args is the llama-server command line (without the program) for c on
// port. It always passes --port, --host, -c, -np and --jinja: their
// defaults have changed between llama-server versions (the port, the
// slots, jinja), so troupe relies on none of them. The model id (-a) is
// the config's name, so sessions ask for the model by config name.
func (c Config) Args(name string, port int) []string {
	args := []string{
		"-m", c.ModelPath,
		"-a", name,
		"--host", c.Host,
		"--port", strconv.Itoa(port),
		"-c", strconv.Itoa(c.Ctx),
		"-np", strconv.Itoa(c.Slots),
		"--jinja",
	}
	if c.MmprojPath != "" {
		args = append(args, "--mmproj", c.MmprojPath)
	}
	if c.Threads > 0 {
		args = append(args, "-t", strconv.Itoa(c.Threads))
	}
	if c.GPULayers != "" {
		args = append(args, "-ngl", c.GPULayers)
	}
	// --fit only when asked: the 2025 builds know no such flag, and a
	// newer build fits only options left unset, which -c and -np are not.
	if c.Fit.Enabled {
		args = append(args, "--fit", "on")
		if len(c.Fit.TargetMiB) > 0 {
			ts := lo.Map(c.Fit.TargetMiB, func(t, _ int) string { return strconv.Itoa(t) })
			args = append(args, "--fit-target", strings.Join(ts, ","))
		}
	}
	if c.APIKey != "" {
		args = append(args, "--api-key", c.APIKey)
	}
	if s := c.Sampling; s != nil {
		f := func(flag string, v *float64) {
			if v != nil {
				args = append(args, flag, strconv.FormatFloat(*v, 'g', -1, 64))
			}
		}
		f("--temp", s.Temperature)
		if s.TopK != nil {
			args = append(args, "--top-k", strconv.Itoa(*s.TopK))
		}
		f("--top-p", s.TopP)
		f("--min-p", s.MinP)
		f("--repeat-penalty", s.RepeatPenalty)
	}
	return append(args, c.ExtraArgs...)
}
