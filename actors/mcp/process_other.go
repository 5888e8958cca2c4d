//go:build !linux

package mcp

import "os/exec"

// isolate is a no-op off Linux: process groups and parent-death signals are
// handled only there, so the SDK's own close (stdin, SIGTERM, kill) is all
// that ends a stdio server.
func isolate(*exec.Cmd) {}

// killGroup is a no-op off Linux; see isolate.
func killGroup(*exec.Cmd) {}
