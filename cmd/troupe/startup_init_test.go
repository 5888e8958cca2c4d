package main

import (
	"bytes"
	"cmp"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// Go runs the init of every package a binary links before main, whatever
// the command: `troupe version` pays for the daemon's SDKs. These tests
// guard what can be guarded without a clock (issue 28, start-up): the
// runtime's own account of each package's init (GODEBUG=inittrace=1:
// bytes and allocations, which do not depend on the machine's load) and
// the list of packages linked at all. BENCHMARKS.md has the times.

// ownInitBytes and ownInitAllocs bound one of our packages' init: a few
// tables and error values. A regexp, template or schema built at package
// level belongs in a sync.OnceValue, built where it is first used (one
// bounded repeat, {0,127}, was 1,700 allocations at every start).
const (
	ownInitBytes  = 32 << 10
	ownInitAllocs = 400
)

// initBudgetBytes (4.25 MiB) bounds what every linked package's init
// allocates together: 2.37 MB when it was set at 3.5 MiB (genai and its
// Google Cloud auth 1.33 MB of it; protoactor's prometheus and otel
// 0.37 MB; goja's pprof 0.27 MB; openai-go), and anthropic-sdk-go with
// aws-sdk-go-v2, being added then, measured at 0.75 MB more. A new SDK
// whose init goes past it is measured (`GODEBUG=inittrace=1 troupe
// version`) and its cost written in BENCHMARKS.md before this is raised:
// etcd's client (`troupe daemon --cluster-etcd`), whose gogo-generated API
// packages register 0.87 MB of descriptors, raised it to 4.25 MiB (4.20 MB
// in all then).
const initBudgetBytes = 17 << 18

// neverLinked are packages no command needs, so none may be linked:
// profiling handlers (registered on http.DefaultServeMux by their init;
// a profile would be asked for with a flag, behind a build tag) and
// OpenTelemetry's exporters (metrics are Prometheus, served by us).
// protoactor's remoting and clustering are linked since `troupe daemon
// --cluster` (issue 29): measured with `GODEBUG=inittrace=1 troupe
// version`, their inits and ours (cluster, clusterpb, echo, gogo/protobuf)
// add 153 KB to 3.16 MB before main (enough to bring the collector's
// first run into init: `troupe version`'s peak memory grows by 11 MiB,
// BENCHMARKS.md), and the binary grows by 3.7 MB; no command other than a
// clustered daemon runs any of their code.
var neverLinked = []string{
	"net/http/pprof",
	"go.opentelemetry.io/otel/exporters/otlp",
}

// generatedInitBytes bounds the init of our generated protobuf packages,
// whose registration of each message's descriptor cannot be deferred:
// clusterpb, 40 messages, measured 34,888 bytes in 19 allocations.
var generatedInitBytes = map[string]int{
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb": 48 << 10,
}

type pkgInit struct {
	pkg           string
	bytes, allocs int
}

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// versionInits runs `troupe version` under GODEBUG=inittrace=1 and parses
// the runtime's line per package whose init did any work.
func versionInits(t *testing.T) []pkgInit {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	testkit.NoError(t, err)
	if !strings.HasPrefix(string(out), "troupe ") {
		t.Fatalf("version printed %q", out)
	}
	var inits []pkgInit
	for line := range strings.Lines(stderr.String()) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		pkg, err := url.PathUnescape(m[1])
		testkit.NoError(t, err)
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		inits = append(inits, pkgInit{pkg: pkg, bytes: b, allocs: a})
	}
	// The trace names the runtime's own packages and ours: without them
	// the format changed and nothing below would be checked.
	if !slices.ContainsFunc(inits, func(p pkgInit) bool { return p.pkg == "runtime" }) ||
		!slices.ContainsFunc(inits, func(p pkgInit) bool { return strings.HasPrefix(p.pkg, "github.com/troupehq/troupe/") }) {
		t.Fatalf("GODEBUG=inittrace=1 printed no init lines this test reads:\n%s", stderr.String())
	}
	return inits
}

func TestStartupOwnPackagesInitLight(t *testing.T) {
	for _, p := range versionInits(t) {
		if !strings.HasPrefix(p.pkg, "github.com/troupehq/troupe/") {
			continue
		}
		if p.bytes > cmp.Or(generatedInitBytes[p.pkg], ownInitBytes) || p.allocs > ownInitAllocs {
			t.Errorf("%s allocates %d bytes in %d allocations before main (at most %d bytes, %d allocations): build it on first use (sync.OnceValue)",
				p.pkg, p.bytes, p.allocs, ownInitBytes, ownInitAllocs)
		}
	}
}

func TestStartupInitWithinBudget(t *testing.T) {
	inits := versionInits(t)
	total := 0
	byModule := map[string]int{}
	for _, p := range inits {
		total += p.bytes
		byModule[modulePrefix(p.pkg)] += p.bytes
	}
	if total <= initBudgetBytes {
		return
	}
	mods := slices.Collect(func(yield func(string) bool) {
		for m := range byModule {
			if !yield(m) {
				return
			}
		}
	})
	slices.SortFunc(mods, func(a, b string) int { return cmp.Compare(byModule[b], byModule[a]) })
	var top strings.Builder
	for _, m := range mods[:min(len(mods), 12)] {
		fmt.Fprintf(&top, "  %-50s %9d bytes\n", m, byModule[m])
	}
	t.Fatalf("the linked packages' inits allocate %d bytes before main, over the budget of %d; by module:\n%s", total, initBudgetBytes, top.String())
}

// modulePrefix groups a package with its module's others, near enough to
// name the SDK a failure is about (host/owner/name, or the first two
// elements of a vanity path; the standard library as "std").
func modulePrefix(pkg string) string {
	parts := strings.Split(pkg, "/")
	switch {
	case !strings.Contains(parts[0], "."):
		return "std"
	case parts[0] == "github.com" && len(parts) >= 3:
		return strings.Join(parts[:3], "/")
	default:
		return strings.Join(parts[:min(len(parts), 2)], "/")
	}
}

func TestStartupLinksNoUnneededPackages(t *testing.T) {
	bin := testkit.GoList(t, "github.com/troupehq/troupe/cmd/troupe")
	if len(bin) != 1 || !slices.Contains(bin[0].Deps, "github.com/asynkron/protoactor-go/actor") {
		t.Fatalf("go list cmd/troupe names no protoactor: %+v", bin)
	}
	deps := bin[0].Deps
	for _, d := range deps {
		for _, never := range neverLinked {
			if d == never || strings.HasPrefix(d, never+"/") {
				t.Errorf("the troupe binary links %s, which no command needs", d)
			}
		}
	}
}
