package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// benchmark is one of the benchmarks benchab compares: the figures it
// prints (in table order) and how each side is built and run.
type benchmark struct {
	name    string
	figures []figure
	build   func(ctx context.Context, base, head tree, tmp string) ([2]side, error)
}

// side is one build, ready to run at any N.
type side struct {
	tree tree
	run  func(ctx context.Context, n int) (figures, error)
}

var benchmarks = map[string]*benchmark{
	"scale":        {name: "scale", figures: scaleFigures, build: buildScale},
	"daemon-scale": {name: "daemon-scale", figures: daemonFigures, build: buildDaemonScale},
}

// buildScale builds troupe-scale from each side's tree: it links the
// runtime it measures.
func buildScale(ctx context.Context, base, head tree, tmp string) ([2]side, error) {
	var sides [2]side
	for i, t := range [2]tree{base, head} {
		bin := filepath.Join(tmp, fmt.Sprintf("side%d", i), "troupe-scale")
		if err := goBuild(ctx, t.dir, "build", "-o", bin, "./testkit/cmd/troupe-scale"); err != nil {
			return sides, fmt.Errorf("%s: %w", t.label, err)
		}
		sides[i] = side{tree: t, run: func(ctx context.Context, n int) (figures, error) {
			out, err := runCommand(ctx, t.dir, nil, bin, "-header", "-n", strconv.Itoa(n))
			if err != nil {
				return nil, err
			}
			return parseScaleTable(out, n)
		}}
	}
	return sides, nil
}

// buildDaemonScale builds each side's troupe binary and, once, the head's
// cmd/troupe test binary, which runs BenchmarkDaemonScale against either
// binary as its daemon.
func buildDaemonScale(ctx context.Context, base, head tree, tmp string) ([2]side, error) {
	var sides [2]side
	test := filepath.Join(tmp, "troupe.test")
	if err := goBuild(ctx, head.dir, "test", "-c", "-o", test, "./cmd/troupe"); err != nil {
		return sides, fmt.Errorf("%s: %w", head.label, err)
	}
	for i, t := range [2]tree{base, head} {
		bin := filepath.Join(tmp, fmt.Sprintf("side%d", i), "troupe")
		if err := goBuild(ctx, t.dir, "build", "-o", bin, "./cmd/troupe"); err != nil {
			return sides, fmt.Errorf("%s: %w", t.label, err)
		}
		sides[i] = side{tree: t, run: func(ctx context.Context, n int) (figures, error) {
			env := []string{"SCALE_N=" + strconv.Itoa(n), "TROUPE_BENCH_DAEMON=" + bin}
			out, err := runCommand(ctx, filepath.Join(head.dir, "cmd", "troupe"), env, test,
				"-test.run", "^$", "-test.bench", "^BenchmarkDaemonScale$", "-test.benchtime", "1x", "-test.timeout", "30m")
			if err != nil {
				return nil, err
			}
			return parseBenchOutput(out, fmt.Sprintf("BenchmarkDaemonScale/sessions=%d", n))
		}}
	}
	return sides, nil
}

// goBuild runs go build or go test -c in dir. -trimpath keeps the build
// cache's entries independent of the tree's path, so the base's worktree
// reuses what the head built wherever the two agree.
func goBuild(ctx context.Context, dir, verb string, args ...string) error {
	args = append([]string{verb, "-trimpath"}, args...)
	_, err := runCommand(ctx, dir, nil, "go", args...)
	return err
}

// runCommand runs name in dir with env added and returns its stdout; a
// failure carries the end of its output.
func runCommand(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	inGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(stdout.String()+stderr.String(), 40))
	}
	return stdout.String(), nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
