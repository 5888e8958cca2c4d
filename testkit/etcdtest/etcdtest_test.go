package etcdtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit/etcdtest"
)

// A started etcd answers on its client URL, and is gone once stopped.
func TestStartServesAndStops(t *testing.T) {
	s := etcdtest.Start(t)
	res, err := http.Get(s.Endpoint + "/version")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "etcdserver") {
		t.Fatalf("/version: %s", body)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(s.Endpoint + "/version"); err == nil {
		t.Fatal("etcd still answers after Stop")
	}
}
