//go:build !linux

package main

// withoutEcho is not offered here: each prompt reads with
// term.ReadPassword, which turns echo off as it reads.
func withoutEcho(int) (restore func(), ok bool) { return nil, false }
