package persistence

import (
	"os"
	"testing"

	"github.com/troupehq/troupe/testkit/pgtest"
)

// TestMain shares one PostgreSQL server among the package's tests (pgtest
// stops it at the end), and runs this binary as a lease racer when
// lease_race_test.go starts it as one.
func TestMain(m *testing.M) {
	if target := os.Getenv(racerEnv); target != "" {
		os.Exit(racer(target))
	}
	os.Exit(pgtest.Run(m))
}
