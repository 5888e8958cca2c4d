// Package tools owns the built-in tools a coding-agent session can call
// (read, write, edit, bash, glob, grep, ls): their names, argument schemas,
// categories, and the plain-Go code that runs them against the filesystem
// and the shell.
//
// It must not touch actors, sessions, approval policy or protocol encoding:
// callers (the per-call tool actors) decide whether a call may run, using
// Category, Touches and Within, and map a Result onto their protocol's shape.
// Nothing here logs or prints; every outcome is returned.
package tools
