package agentjs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/dop251/goja"
)

// maxBody bounds a response body read into the VM.
const maxBody = 16 << 20

// fetchOptions is fetch's second argument.
type fetchOptions struct {
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// installNet: fetch(url, {method, headers, body}) → promise of {status,
// ok, headers, body, text(), json()}; http_get(url) and http_post(url,
// body) → promise of the body, rejected on a status other than 2xx.
func (r *Runtime) installNet(vm *goja.Runtime) error {
	request := func(rawURL string, opts fetchOptions) goja.Value {
		if err := r.checkHost(rawURL); err != nil {
			throw(vm, err)
		}
		return r.async(vm, func(ctx context.Context) (any, error) { return r.do(ctx, rawURL, opts) })
	}
	fetch := func(rawURL string, opts *fetchOptions) goja.Value {
		if opts == nil {
			opts = &fetchOptions{}
		}
		p := request(rawURL, *opts)
		return r.then(vm, p, func(v goja.Value) goja.Value {
			res := v.Export().(*response)
			obj := vm.NewObject()
			_ = obj.Set("status", res.Status)
			_ = obj.Set("ok", res.Status >= 200 && res.Status < 300)
			_ = obj.Set("headers", res.Headers)
			_ = obj.Set("body", res.Body)
			_ = obj.Set("text", func() string { return res.Body })
			_ = obj.Set("json", func() goja.Value {
				parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
				out, err := parse(goja.Undefined(), vm.ToValue(res.Body))
				if err != nil {
					panic(err)
				}
				return out
			})
			return obj
		})
	}
	body := func(v goja.Value) goja.Value {
		res := v.Export().(*response)
		if res.Status < 200 || res.Status > 299 {
			throw(vm, fmt.Errorf("http %d: %s", res.Status, truncate(res.Body, 200)))
		}
		return vm.ToValue(res.Body)
	}
	for name, fn := range map[string]any{
		"fetch":    fetch,
		"http_get": func(u string) goja.Value { return r.then(vm, request(u, fetchOptions{}), body) },
		"http_post": func(u, b string) goja.Value {
			return r.then(vm, request(u, fetchOptions{Method: "POST", Body: b}), body)
		},
	} {
		if err := vm.Set(name, fn); err != nil {
			return err
		}
	}
	return nil
}

type response struct {
	Status  int
	Headers map[string]string
	Body    string
}

func (r *Runtime) do(ctx context.Context, rawURL string, opts fetchOptions) (*response, error) {
	method := cmp.Or(strings.ToUpper(opts.Method), http.MethodGet)
	var body io.Reader
	if opts.Body != "" {
		body = strings.NewReader(opts.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	for k, v := range opts.Headers {
		req.Header.Set(k, v)
	}
	resp, err := r.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	h := map[string]string{}
	for k := range resp.Header {
		h[strings.ToLower(k)] = resp.Header.Get(k)
	}
	return &response{Status: resp.StatusCode, Headers: h, Body: string(b)}, nil
}

// then is promise.then(fn) from Go.
func (r *Runtime) then(vm *goja.Runtime, promise goja.Value, fn func(goja.Value) goja.Value) goja.Value {
	obj := promise.ToObject(vm)
	thenFn, _ := goja.AssertFunction(obj.Get("then"))
	v, err := thenFn(obj, vm.ToValue(fn))
	if err != nil {
		panic(err)
	}
	return v
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
