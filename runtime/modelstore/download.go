package modelstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const partSuffix = ".part"

// progressStep is how many bytes pass between two progress reports.
const progressStep = 256 << 10

// Downloader fetches files from a Hugging-Face-compatible endpoint:
// GET {Endpoint}/{repo}/resolve/main/{file}, whose answer (or the redirect
// to it) carries X-Linked-Size and X-Linked-Etag (the sha256 of an LFS
// file) as huggingface.co sends them.
type Downloader struct {
	Endpoint string
	Token    string
	Client   *http.Client // nil: http.DefaultClient
}

// Progress is one report of a file's download; Downloaded never goes
// down within one file's reports, and the last one has Done.
type Progress struct {
	File       string `json:"file"`
	Downloaded int64  `json:"downloaded"`
	Total      int64  `json:"total"`
	Done       bool   `json:"done,omitempty"`
}

// Added is one file Add has in place.
type Added struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256,omitempty"`
	ResumedFrom int64  `json:"resumed_from,omitempty"`
	Present     bool   `json:"already_present,omitempty"`
}

// Add downloads files of repo into the store, one after the other. A file
// already complete is left alone; a partial one resumes where its .part
// ends. progress may be nil.
func (s Store) Add(ctx context.Context, d Downloader, repo string, files []string, progress func(Progress)) ([]Added, error) {
	if err := CheckRepo(repo); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("no files to add")
	}
	for _, f := range files {
		if err := checkFile(f); err != nil {
			return nil, err
		}
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	out := make([]Added, 0, len(files))
	for _, f := range files {
		a, err := s.fetch(ctx, d, repo, f, progress)
		if err != nil {
			return out, fmt.Errorf("add %s/%s: %w", repo, f, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// remote is what the endpoint says of a file before it is fetched.
type remote struct {
	size   int64  // -1 when unknown
	sha256 string // "" when the endpoint gives none
}

func (d Downloader) client() *http.Client {
	if d.Client != nil {
		return d.Client
	}
	return http.DefaultClient
}

func (d Downloader) url(repo, file string) string {
	return strings.TrimRight(d.Endpoint, "/") + "/" + repo + "/resolve/main/" + (&url.URL{Path: file}).EscapedPath()
}

func (d Downloader) request(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	if d.Token != "" {
		req.Header.Set("Authorization", "Bearer "+d.Token)
	}
	return req, nil
}

// stat asks for the file's size and hash with a HEAD that does not follow
// the redirect: huggingface.co puts X-Linked-* on the redirect itself.
func (d Downloader) stat(ctx context.Context, repo, file string) (remote, error) {
	req, err := d.request(ctx, http.MethodHead, d.url(repo, file))
	if err != nil {
		return remote{}, err
	}
	c := *d.client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return remote{}, fmt.Errorf("head: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return remote{}, statusError(resp)
	}
	r := remote{size: resp.ContentLength, sha256: shaOf(resp.Header.Get("X-Linked-Etag"))}
	if n, err := strconv.ParseInt(resp.Header.Get("X-Linked-Size"), 10, 64); err == nil {
		r.size = n
	}
	if r.sha256 == "" && resp.StatusCode == http.StatusOK {
		r.sha256 = shaOf(resp.Header.Get("Etag"))
	}
	return r, nil
}

// shaOf is an ETag's value when it is a sha256 (LFS files), else "".
func shaOf(etag string) string {
	v := strings.ToLower(strings.Trim(strings.TrimPrefix(etag, "W/"), `"`))
	if len(v) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(v); err != nil {
		return ""
	}
	return v
}

func statusError(resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%s: the repo needs a token (config.defaults hf_token) or the token is refused", resp.Status)
	case http.StatusNotFound:
		return fmt.Errorf("%s: no such repo or file", resp.Status)
	}
	return fmt.Errorf("endpoint answered %s", resp.Status)
}

func (s Store) fetch(ctx context.Context, d Downloader, repo, file string, progress func(Progress)) (Added, error) {
	final := filepath.Join(s.RepoDir(repo), filepath.FromSlash(file))
	a := Added{Name: file, Path: final}
	rem, err := d.stat(ctx, repo, file)
	if err != nil {
		return a, err
	}
	a.SHA256 = rem.sha256
	if st, err := os.Stat(final); err == nil && (rem.size < 0 || st.Size() == rem.size) {
		a.Size, a.Present = st.Size(), true
		progress(Progress{File: file, Downloaded: st.Size(), Total: st.Size(), Done: true})
		return a, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return a, fmt.Errorf("make repo folder: %w", err)
	}
	part, err := os.OpenFile(final+partSuffix, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return a, fmt.Errorf("open part: %w", err)
	}
	defer part.Close()
	have, err := part.Seek(0, io.SeekEnd)
	if err != nil {
		return a, fmt.Errorf("seek part: %w", err)
	}
	if rem.size >= 0 && have > rem.size {
		have = 0 // longer than the file: not a prefix of it
	}
	sum := sha256.New()
	if have > 0 {
		if _, err := part.Seek(0, io.SeekStart); err != nil {
			return a, fmt.Errorf("seek part: %w", err)
		}
		if _, err := io.CopyN(sum, part, have); err != nil {
			return a, fmt.Errorf("hash part: %w", err)
		}
	}
	if rem.size < 0 || have < rem.size {
		if have, err = d.get(ctx, repo, file, part, have, &rem, sum, progress); err != nil {
			return a, err
		}
	}
	a.ResumedFrom = have
	if err := verify(part, rem, sum); err != nil {
		part.Close()
		_ = os.Remove(final + partSuffix) // bad bytes: the next try starts over
		return a, err
	}
	if err := part.Close(); err != nil {
		return a, fmt.Errorf("close part: %w", err)
	}
	if err := os.Rename(final+partSuffix, final); err != nil {
		return a, fmt.Errorf("rename part: %w", err)
	}
	st, err := os.Stat(final)
	if err != nil {
		return a, fmt.Errorf("stat %s: %w", file, err)
	}
	a.Size = st.Size()
	progress(Progress{File: file, Downloaded: a.Size, Total: a.Size, Done: true})
	return a, nil
}

// get appends the file's bytes from offset have to part, asking for a
// range; a server that ignores the range sends it all, and part restarts.
// It returns where the resume started.
func (d Downloader) get(ctx context.Context, repo, file string, part *os.File, have int64, rem *remote, sum hash.Hash, progress func(Progress)) (int64, error) {
	req, err := d.request(ctx, http.MethodGet, d.url(repo, file))
	if err != nil {
		return 0, err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := d.client().Do(req)
	if err != nil {
		return 0, fmt.Errorf("get: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)) {
			return 0, fmt.Errorf("asked for bytes %d- and got %q", have, resp.Header.Get("Content-Range"))
		}
	case resp.StatusCode == http.StatusOK:
		if have > 0 {
			have = 0
			sum.Reset()
		}
		if rem.size < 0 {
			rem.size = resp.ContentLength
		}
	default:
		return 0, statusError(resp)
	}
	if err := part.Truncate(have); err != nil {
		return 0, fmt.Errorf("truncate part: %w", err)
	}
	if _, err := part.Seek(have, io.SeekStart); err != nil {
		return 0, fmt.Errorf("seek part: %w", err)
	}
	pw := &progressWriter{file: file, n: have, total: rem.size, report: progress}
	progress(Progress{File: file, Downloaded: have, Total: rem.size})
	if _, err := io.Copy(io.MultiWriter(part, sum, pw), resp.Body); err != nil {
		return have, fmt.Errorf("download interrupted at %d of %d bytes (run it again to resume): %w", pw.n, rem.size, err)
	}
	return have, nil
}

func verify(part *os.File, rem remote, sum hash.Hash) error {
	st, err := part.Stat()
	if err != nil {
		return fmt.Errorf("stat part: %w", err)
	}
	if rem.size >= 0 && st.Size() != rem.size {
		return fmt.Errorf("downloaded %d bytes, the endpoint said %d", st.Size(), rem.size)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); rem.sha256 != "" && got != rem.sha256 {
		return fmt.Errorf("sha256 %s, the endpoint said %s: the download is corrupt and was deleted", got, rem.sha256)
	}
	return nil
}

// progressWriter reports each time another progressStep bytes arrived.
type progressWriter struct {
	file     string
	n, total int64
	last     int64
	report   func(Progress)
}

func (w *progressWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	if w.n-w.last >= progressStep {
		w.last = w.n
		w.report(Progress{File: w.file, Downloaded: w.n, Total: w.total})
	}
	return len(b), nil
}
