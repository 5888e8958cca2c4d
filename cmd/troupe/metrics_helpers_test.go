package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/troupehq/troupe/testkit"
)

// scrape is one parsed /metrics answer, by family name.
type scrape struct {
	text     string
	families map[string]*dto.MetricFamily
}

// scrape reads the daemon's /metrics with its token.
func (d *daemonProc) scrape(t *testing.T) scrape {
	t.Helper()
	res := d.do(t, http.MethodGet, "/metrics", nil)
	return readScrape(t, res)
}

func readScrape(t *testing.T, res *http.Response) scrape {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, b)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET /metrics: content type %q, want the text format", ct)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	testkit.NoError(t, err)
	return scrape{text: string(b), families: fams}
}

// value sums the series of family name whose labels include the pairs
// given (name, value, ...): a counter's or gauge's value, a histogram's
// observation count. An absent family is 0.
func (s scrape) value(name string, labels ...string) float64 {
	f, ok := s.families[name]
	if !ok {
		return 0
	}
	var sum float64
	for _, m := range f.Metric {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.Label {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// untilMetric scrapes until cond holds on a scrape, and returns it.
func (d *daemonProc) untilMetric(t *testing.T, what string, cond func(scrape) bool) scrape {
	t.Helper()
	var last scrape
	testkit.Eventually(t, 20*time.Second, what, func() bool {
		last = d.scrape(t)
		return cond(last)
	})
	return last
}

// promtoolCheck runs Prometheus's own linter on a scrape's text.
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not on PATH: install the Debian package prometheus (.ci/packages lists it)")
	}
	path := filepath.Join(t.TempDir(), "scrape.txt")
	testkit.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	f, err := os.Open(path)
	testkit.NoError(t, err)
	defer f.Close()
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = f
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\nthe scrape:\n%s", err, out, text)
	}
}
