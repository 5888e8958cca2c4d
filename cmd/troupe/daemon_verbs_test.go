package main

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// slash sends text as a prompt and returns the reply it was answered with
// (its agent_message_chunks) and the frames up to the answer.
func slash(t *testing.T, c *acpclient.Client, sid, text string) (string, []acpclient.Frame) {
	t.Helper()
	id := c.Prompt(sid, text)
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	if ans := fs[len(fs)-1]; ans.Error != nil {
		t.Fatalf("%s: %s", text, ans.Raw)
	}
	return acpclient.Chunks(t, fs), fs
}

// Hydra's built-in /hydra verbs are served beside the extensions' (the
// TUI's /rename sends `/hydra title X`): title sets the title, help lists
// every verb with its arguments, the extensions' too, fork forks, agent
// and the verbs troupe cannot serve say so, an unknown verb names the
// known ones, kill closes the session; an extension's verbs still run.
func TestDaemonHydraBuiltinVerbs(t *testing.T) {
	d, _ := commandsDaemon(t)
	c := d.dialACP(t, "hydra-tui")
	sid, _ := c.NewSession(t.TempDir())

	reply, fs := slash(t, c, sid, "/hydra title Bug hunt")
	testkit.Equal(t, reply, "")
	var entry struct{ Title, Status, ForkedFromSessionID string }
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.Title, "Bug hunt")
	if acpclient.Count(fs, "session_info_update") == 0 {
		t.Fatalf("no session_info_update before the answer: %v", fs)
	}

	help, _ := slash(t, c, sid, "/hydra help")
	for _, want := range []string{"/hydra title", "/hydra fork [verbatim]", "/hydra config [<id> [<value>]]", "/hydra kill",
		"/hydra uncompact", "/hydra agent <agent | status>", "/hydra ext greet <name>", "/hydra ext slow"} {
		if !strings.Contains(help, want) {
			t.Fatalf("/hydra help lacks %q:\n%s", want, help)
		}
	}

	agent, _ := slash(t, c, sid, "/hydra agent claude-acp")
	if !strings.Contains(agent, "no agent `claude-acp` is configured") {
		t.Fatalf("/hydra agent answered %q", agent)
	}
	unknown, _ := slash(t, c, sid, "/hydra frobnicate")
	if !strings.Contains(unknown, "frobnicate") || !strings.Contains(unknown, "title") || !strings.Contains(unknown, "ext") {
		t.Fatalf("an unknown verb answered %q", unknown)
	}
	uncompact, _ := slash(t, c, sid, "/hydra uncompact")
	if uncompact == "" {
		t.Fatalf("/hydra uncompact answered nothing")
	}
	greet, _ := slash(t, c, sid, "/hydra ext greet you")
	if !strings.HasPrefix(greet, "hello you") {
		t.Fatalf("the extension's verb answered %q", greet)
	}

	set, fs := slash(t, c, sid, "/hydra config mode yolo")
	testkit.Equal(t, set, "mode set to yolo.")
	if acpclient.Count(fs, "config_option_update") == 0 {
		t.Fatalf("no config_option_update before the answer: %v", fs)
	}
	if listed, _ := slash(t, c, sid, "/hydra config"); !strings.Contains(listed, "mode (Approval mode): yolo") {
		t.Fatalf("/hydra config answered %q", listed)
	}
	if status, _ := slash(t, c, sid, "/hydra compact status"); !strings.Contains(status, "No compaction yet") {
		t.Fatalf("/hydra compact status answered %q", status)
	}

	if scheduled, _ := slash(t, c, sid, "/hydra compact"); !strings.Contains(scheduled, "scheduled") {
		t.Fatalf("/hydra compact answered %q", scheduled)
	}

	forked, _ := slash(t, c, sid, "/hydra fork")
	m := regexp.MustCompile(`hydra://sessions/(\S+?)\)`).FindStringSubmatch(forked)
	if m == nil {
		t.Fatalf("/hydra fork answered %q", forked)
	}
	d.call(t, "GET", "/v1/sessions/"+m[1], nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.ForkedFromSessionID, sid)
	testkit.Equal(t, entry.Title, "Bug hunt")

	// With no title, the model writes one (this one answers "fine").
	if reply, _ := slash(t, c, sid, "/hydra title"); reply != "" {
		t.Fatalf("/hydra title answered %q", reply)
	}
	testkit.Eventually(t, acpWait, "the written title", func() bool {
		d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
		return entry.Title == "fine"
	})

	// The session may close before or after the prompt is answered: the
	// closing is looked for among the frames read up to the answer too.
	_, fs = slash(t, c, sid, "/hydra kill")
	if !slices.ContainsFunc(fs, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/closed" }) {
		c.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/closed" })
	}
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.Status, "cold")
}
