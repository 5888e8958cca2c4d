package main

import (
	"os"
	"testing"

	"github.com/troupehq/troupe/testkit/pgtest"
)

// TestMain lets the tests that keep sessions in PostgreSQL share one
// server (pgtest starts it on first use and stops it here).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(m))
}
