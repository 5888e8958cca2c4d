package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/persistence"
)

// helpWidth is the column help fits in: summaries, descriptions and flag
// usages are wrapped to it.
const helpWidth = 80

// Annotations of commands: footerKey is the text a command's help ends
// with; groupKey marks a command that only holds others (app.group).
const (
	footerKey = "troupe-footer"
	groupKey  = "troupe-group"
)

func init() {
	// Cobra's template functions are global: added once, for every tree.
	cobra.AddTemplateFuncs(template.FuncMap{
		"wrap":        func(s string) string { return wrap(s, helpWidth) },
		"commandList": commandList,
		"flagUsages":  flagUsages,
		"ownUseLine":  func(c *cobra.Command) bool { return c.Runnable() && c.HasParent() && c.Annotations[groupKey] == "" },
	})
}

// usageTemplate is cobra's, with "Commands:" listing the subcommands in
// aligned columns and everything wrapped to helpWidth.
const usageTemplate = `Usage:{{if ownUseLine .}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} COMMAND [flags]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Commands:
{{commandList .}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Flags of {{.Parent.CommandPath}}:
{{flagUsages .InheritedFlags}}{{end}}{{with index .Annotations "troupe-footer"}}

{{wrap .}}{{end}}{{if .HasAvailableSubCommands}}

Run '{{.CommandPath}} COMMAND --help' for a command's flags.{{end}}
`

// helpTemplate is the description, wrapped, then the usage.
const helpTemplate = `{{with (or .Long .Short)}}{{wrap . | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

// setupHelp sets the templates and where help goes. `troupe help [CMD]`
// and `troupe --help` print to stdout; `troupe CMD --help` to stderr, as
// Go's flag package did: the command's stdout is its output, a protocol's
// in the stdio modes.
func setupHelp(a *app, root *cobra.Command) {
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(helpTemplate)
	base := root.HelpFunc()
	a.helpFunc = base
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := a.stderr
		if !c.HasParent() {
			w = a.stdout
		}
		a.showHelp(c, w)
	})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Use, c.Short, c.Long = "help [COMMAND...]", "show a command's help", ""
			c.Args = cobra.ArbitraryArgs
			c.Run = nil
			c.RunE = func(_ *cobra.Command, topic []string) error { return a.helpCommand(root, topic) }
		case "completion":
			c.Short = "print a shell's completion script: bash, zsh, fish or powershell"
		}
	}
}

// helpCommand is `troupe help [COMMAND...]` (topic below base): the
// command's help on stdout; an unknown one is a usage error naming the
// nearest.
func (a *app) helpCommand(base *cobra.Command, topic []string) error {
	c, rest, err := base.Find(topic)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return unknownCommand(c, rest[0])
	}
	c.InitDefaultHelpFlag()
	c.InitDefaultVersionFlag()
	a.showHelp(c, a.stdout)
	return nil
}

// showHelp writes c's help to w.
func (a *app) showHelp(c *cobra.Command, w io.Writer) {
	out := c.OutOrStdout()
	c.SetOut(w)
	a.helpFunc(c, nil)
	c.SetOut(out)
}

// wrap breaks s's lines longer than width at spaces; a wrapped line's
// continuation keeps its indent. A word longer than the line stays whole.
// A tab is four spaces (cobra's own texts indent commands with one; a
// terminal would show eight).
func wrap(s string, width int) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "\t", "    ")
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		for utf8.RuneCountInString(line) > width {
			cut := lastSpaceWithin(line, width, len(indent))
			if cut < 0 {
				break
			}
			b.WriteString(strings.TrimRight(line[:cut], " "))
			b.WriteByte('\n')
			line = indent + strings.TrimLeft(line[cut:], " ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// lastSpaceWithin is the byte offset of the last space after from that
// leaves at most width runes before it; -1 if there is none.
func lastSpaceWithin(line string, width, from int) int {
	cut, runes := -1, 0
	for i, r := range line {
		if runes > width {
			break
		}
		if r == ' ' && i > from {
			cut = i
		}
		runes++
	}
	return cut
}

// commandList is c's subcommands, a row each: the name, then the summary
// in one column, wrapped under itself.
func commandList(c *cobra.Command) string {
	var subs []*cobra.Command
	width := 0
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() || s.Name() == "help" {
			subs = append(subs, s)
			width = max(width, len(s.Name()))
		}
	}
	var b strings.Builder
	indent := strings.Repeat(" ", 2+width+2)
	for i, s := range subs {
		if i > 0 {
			b.WriteByte('\n')
		}
		row := fmt.Sprintf("  %-*s  %s", width, s.Name(), s.Short)
		b.WriteString(wrapHanging(row, indent))
	}
	return b.String()
}

// wrapHanging wraps row to helpWidth, its continuation lines indented.
func wrapHanging(row, indent string) string {
	lines := strings.Split(wrap(row, helpWidth), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = wrap(indent+strings.TrimLeft(lines[i], " "), helpWidth)
	}
	return strings.Join(lines, "\n")
}

// flagUsages is the flags of fs, a row each: the flag and its value's
// name, then its usage and default in one column, wrapped under itself.
// (pflag's own rendering spells every switch --name[=true|false].)
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if name != "" {
			left += " " + name
		}
		if d := flagDefault(f); d != "" {
			usage += " (default " + d + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, utf8.RuneCountInString(left))
	})
	var b strings.Builder
	indent := strings.Repeat(" ", width+3)
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(r.left))
		b.WriteString(wrapHanging(r.left+pad+"   "+r.usage, indent))
	}
	return b.String()
}

// flagDefault is f's default as help shows it; "" when it is the zero
// value, which goes without saying.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return strconv.Quote(f.DefValue)
	}
	return f.DefValue
}

// versionLine is what `troupe version` and `troupe --version` print.
func versionLine() string {
	v := currentVersion()
	if v == devVersion {
		// Say why there is no better answer: the build carried none.
		v += " (a development build with no version or VCS stamp)"
	}
	return fmt.Sprintf("troupe %s (store schema %d)\n", v, persistence.SchemaVersion())
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version",
		Args:  noArgs,
		RunE: a.action(func([]string) int {
			fmt.Fprint(a.stdout, versionLine())
			return 0
		}),
	}
}
