package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// tree is one side's source: the base's temporary worktree or the
// repository's working tree.
type tree struct {
	dir, label string
	// remove deletes a temporary worktree; nil for the working tree.
	remove func() error
}

// checkout makes the base revision's worktree under tmp and names the
// working tree: the head is HEAD's short hash, with "+" when the working
// tree differs from it (its build is what is measured).
func checkout(ctx context.Context, repo, rev, tmp string) (base, head tree, err error) {
	top, err := git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return base, head, fmt.Errorf("%s is not in a git working tree: %w", repo, err)
	}
	head = tree{dir: top, remove: func() error { return nil }}
	if head.label, err = git(ctx, top, "rev-parse", "--short", "HEAD"); err != nil {
		return base, head, err
	}
	if changed, err := git(ctx, top, "status", "--porcelain"); err != nil {
		return base, head, err
	} else if changed != "" {
		head.label += "+"
	}
	sha, err := git(ctx, top, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return base, head, fmt.Errorf("base %q is no commit: %w", rev, err)
	}
	dir := filepath.Join(tmp, "base-tree")
	if _, err := git(ctx, top, "worktree", "add", "--detach", dir, sha); err != nil {
		return base, head, err
	}
	base = tree{dir: dir, remove: func() error {
		// Not ctx: an interrupted run still removes its worktree.
		if _, err := git(context.Background(), top, "worktree", "remove", "--force", dir); err != nil {
			return fmt.Errorf("remove the base's worktree: %w", err)
		}
		return nil
	}}
	if base.label, err = git(ctx, top, "rev-parse", "--short", sha); err != nil {
		return base, head, err
	}
	return base, head, nil
}

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out)), nil
}
