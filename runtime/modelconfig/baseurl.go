package modelconfig

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// checkBaseURL returns u without trailing slashes, so callers can append
// "/chat/completions", or an error when it is not an absolute http(s) URL.
func checkBaseURL(u string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL like http://127.0.0.1:8080/v1", u)
	}
	return strings.TrimRight(u, "/"), nil
}

// isLocal reports whether a base URL points at this machine or a private
// network, where servers such as llama-server usually run without a key.
// 0.0.0.0 counts because llama-server prints it as its listen address and
// users copy that.
func isLocal(baseURL string) bool {
	parsed, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(parsed.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsLoopback() || ip.IsUnspecified() || ip.IsPrivate()
}

func trimSlash(u string) string { return strings.TrimRight(u, "/") }
