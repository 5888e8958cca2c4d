package llmserver

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// A plan is a Reply checked and flattened into the actions the writers
// replay, so that every script mistake surfaces from Start rather than in
// the middle of a test's HTTP exchange.
type plan struct {
	actions []action
	// finish is the resolved finish reason.
	finish string
	usage  *Usage
}

type actionKind int

const (
	actDelay actionKind = iota
	actKeepAlive
	actContent
	actTokens
	actReasoning
	actRedacted
	actToolStart
	actToolArgs
	actFinish
	actHTTPError
	actStreamError
	actDisconnect
)

type action struct {
	kind  actionKind
	text  string
	delay time.Duration
	// count is how many deltas of text an actTokens sends.
	count int
	// tool, id and name describe a native tool call (actToolStart,
	// actToolArgs).
	tool     int
	id, name string
	err      APIError
}

const (
	defaultModel       = "tiny"
	defaultContextSize = 4096
)

type compiled struct {
	script   Script
	replies  []plan
	fallback *plan
}

func compile(s Script) (compiled, error) {
	if s.Model == "" {
		s.Model = defaultModel
	}
	if s.ContextSize == 0 {
		s.ContextSize = defaultContextSize
	}
	if s.ContextSize < 0 {
		return compiled{}, fmt.Errorf("context_size %d is negative", s.ContextSize)
	}
	if s.Loading < 0 {
		return compiled{}, fmt.Errorf("loading %d is negative", s.Loading)
	}
	c := compiled{script: s}
	for i, r := range s.Replies {
		p, err := compileReply(r)
		if err != nil {
			return compiled{}, fmt.Errorf("reply %d: %w", i+1, err)
		}
		c.replies = append(c.replies, p)
	}
	if s.Default != nil {
		p, err := compileReply(*s.Default)
		if err != nil {
			return compiled{}, fmt.Errorf("default reply: %w", err)
		}
		c.fallback = &p
	}
	return c, nil
}

func compileReply(r Reply) (plan, error) {
	var (
		p        plan
		output   bool // a step other than a delay has been seen
		finished bool
		tools    int
	)
	for i, st := range r.Steps {
		kinds := st.kinds()
		if st.err != nil {
			return plan{}, fmt.Errorf("step %d: %w", i+1, st.err)
		}
		if len(kinds) != 1 {
			return plan{}, fmt.Errorf("step %d sets %d kinds (%s), want exactly one", i+1, len(kinds), strings.Join(kinds, ", "))
		}
		kind := kinds[0]
		last := i == len(r.Steps)-1
		if finished && !allowedAfterFinish(kind) {
			return plan{}, fmt.Errorf("step %d: %s cannot follow finish", i+1, kind)
		}
		var err error
		switch kind {
		case "delay":
			d := time.Duration(*st.Delay)
			if d < 0 {
				err = fmt.Errorf("delay %s is negative", d)
			}
			p.actions = append(p.actions, action{kind: actDelay, delay: d})
		case "keepalive":
			p.actions = append(p.actions, action{kind: actKeepAlive})
		case "text":
			p.actions = append(p.actions, action{kind: actContent, text: *st.Text})
		case "tokens":
			if st.Tokens.Count < 0 {
				err = fmt.Errorf("tokens count %d is negative", st.Tokens.Count)
			}
			p.actions = append(p.actions, action{kind: actTokens, text: st.Tokens.Text, count: st.Tokens.Count})
		case "thinking":
			p.actions = append(p.actions, action{kind: actReasoning, text: *st.Thinking})
		case "redacted_thinking":
			p.actions = append(p.actions, action{kind: actRedacted, text: *st.RedactedThinking})
		case "tool_call":
			err = p.addNativeCall(*st.ToolCall, tools)
			tools++
		case "text_tool_call":
			err = p.addTaggedCall(*st.TextToolCall)
		case "usage":
			err = p.setUsage(*st.Usage)
		case "finish":
			if *st.Finish == "" {
				err = errors.New("finish reason is empty")
			}
			p.finish = *st.Finish
			finished = true
			p.actions = append(p.actions, action{kind: actFinish})
		case "http_error":
			switch {
			case output:
				err = errors.New("http_error must come before any output (only delays may precede it)")
			case !last:
				err = errors.New("http_error must be the last step")
			case st.HTTPError.Status < 400 || st.HTTPError.Status > 599:
				err = fmt.Errorf("http_error status %d is not an HTTP error status", st.HTTPError.Status)
			default:
				_, err = st.HTTPError.body(true)
			}
			p.actions = append(p.actions, action{kind: actHTTPError, err: *st.HTTPError})
		case "stream_error":
			if !last {
				err = errors.New("stream_error must be the last step")
			} else {
				_, err = st.StreamError.body(false)
			}
			p.actions = append(p.actions, action{kind: actStreamError, err: *st.StreamError})
		case "disconnect":
			if !last {
				err = errors.New("disconnect must be the last step")
			}
			p.actions = append(p.actions, action{kind: actDisconnect})
		}
		if err != nil {
			return plan{}, fmt.Errorf("step %d: %w", i+1, err)
		}
		if kind != "delay" {
			output = true
		}
	}
	if p.finish == "" {
		p.finish = "stop"
		if tools > 0 {
			p.finish = "tool_calls"
		}
	}
	return p, nil
}

func allowedAfterFinish(kind string) bool {
	switch kind {
	case "delay", "keepalive", "usage", "stream_error", "disconnect":
		return true
	}
	return false
}

func (p *plan) addNativeCall(c NativeCall, index int) error {
	if c.Name == "" {
		return errors.New("tool_call has no name")
	}
	if c.Arguments != "" && len(c.Chunks) > 0 {
		return errors.New("tool_call sets both arguments and chunks")
	}
	p.actions = append(p.actions, action{kind: actToolStart, tool: index, id: c.ID, name: c.Name})
	chunks := c.Chunks
	if c.Arguments != "" {
		chunks = []string{string(c.Arguments)}
	}
	for _, a := range chunks {
		p.actions = append(p.actions, action{kind: actToolArgs, tool: index, text: a})
	}
	return nil
}

func (p *plan) addTaggedCall(c TaggedCall) error {
	if c.Split < 0 {
		return fmt.Errorf("text_tool_call split %d is negative", c.Split)
	}
	text, err := renderTagged(c)
	if err != nil {
		return err
	}
	for _, piece := range splitText(text, c.Split) {
		p.actions = append(p.actions, action{kind: actContent, text: piece})
	}
	return nil
}

func (p *plan) setUsage(u Usage) error {
	if p.usage != nil {
		return errors.New("usage is set twice")
	}
	switch u.On {
	case "":
		u.On = UsageAuto
	case UsageAuto, UsageOnFinish, UsageSeparate:
	default:
		return fmt.Errorf("usage placement %q is unknown (want auto, finish or separate)", string(u.On))
	}
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CachedTokens < 0 || u.TotalTokens < 0 || u.ReasoningTokens < 0 || u.CacheWriteTokens < 0 {
		return errors.New("usage has a negative count")
	}
	if u.ReasoningTokens > u.CompletionTokens {
		return errors.New("usage has more reasoning tokens than completion tokens")
	}
	if u.CachedTokens+u.CacheWriteTokens > u.PromptTokens {
		return errors.New("usage: cached and cache-write tokens are part of prompt_tokens and cannot exceed it")
	}
	p.usage = &u
	return nil
}

// kinds names the fields that are set, by their script file keys.
func (s Step) kinds() []string {
	var k []string
	add := func(set bool, name string) {
		if set {
			k = append(k, name)
		}
	}
	add(s.Text != nil, "text")
	add(s.Tokens != nil, "tokens")
	add(s.Thinking != nil, "thinking")
	add(s.RedactedThinking != nil, "redacted_thinking")
	add(s.ToolCall != nil, "tool_call")
	add(s.TextToolCall != nil, "text_tool_call")
	add(s.Usage != nil, "usage")
	add(s.Finish != nil, "finish")
	add(s.HTTPError != nil, "http_error")
	add(s.StreamError != nil, "stream_error")
	add(s.Disconnect, "disconnect")
	add(s.Delay != nil, "delay")
	add(s.KeepAlive, "keepalive")
	return k
}
