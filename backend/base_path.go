package backend

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
)

// A deployment may put a base path in front of /v1/... (contract sections
// 7 and 10: "The base path is configurable (e.g. /api-sandbox in front of
// /v1/...)"). The server in front strips it before routing and tells the
// backend with WithBasePath; the answer's links then carry it, so a TPP
// that came in under the base path follows links under it too. The
// backend's handlers keep writing /v1/... links; baseWriter rewrites them
// in one place: the Location header, cookie paths, "href":"/v1/ members of JSON bodies
// (a JSON string cannot hold that byte sequence, its quotes are escaped)
// and action="/v1/ and href="/v1/ attributes of the HTML pages.

// basePathKey is the Go context key of the request's base path.
type basePathKey struct{}

// maxBasePathBytes bounds a base path.
const maxBasePathBytes = 64

// WithBasePath returns ctx telling the backend that the request came in
// under base (e.g. "/api-sandbox"). A base that is not a plain path of
// at most 64 bytes (letters, digits, "-", "_", "." and "/", starting with
// "/", not ending with one, without dot segments) is ignored.
func WithBasePath(ctx context.Context, base string) context.Context {
	if !plainBasePath(base) {
		return ctx
	}
	return context.WithValue(ctx, basePathKey{}, base)
}

func plainBasePath(base string) bool {
	if len(base) < 2 || len(base) > maxBasePathBytes || base[0] != '/' || base[len(base)-1] == '/' || strings.Contains(base, "//") {
		return false
	}
	// Dot segments: the path the client sent was cleaned before the base
	// was stripped (/api-sandbox/x/../v1/...), so what it holds is not the
	// base the links should carry.
	for _, seg := range strings.Split(base[1:], "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	for _, c := range []byte(base) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == '/':
		default:
			return false
		}
	}
	return true
}

// basePath is the request's base path, or "".
func basePath(ctx context.Context) string {
	b, _ := ctx.Value(basePathKey{}).(string)
	return b
}

// baseWriter holds an answer and writes it with its links under base.
type baseWriter struct {
	w      http.ResponseWriter
	base   string
	status int
	body   bytes.Buffer
}

func (b *baseWriter) Header() http.Header { return b.w.Header() }

// Unwrap is the writer b writes the answer to, where bgerror.Error.Write
// finds the code recorder.
func (b *baseWriter) Unwrap() http.ResponseWriter { return b.w }

func (b *baseWriter) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *baseWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// finish writes the held answer with its links under base.
func (b *baseWriter) finish() {
	h := b.w.Header()
	if loc := h.Get("Location"); strings.HasPrefix(loc, "/v1/") {
		h.Set("Location", b.base+loc)
	}
	// The SCA pages' cookies are scoped to their paths.
	for i, c := range h["Set-Cookie"] {
		h["Set-Cookie"][i] = strings.Replace(c, "; Path=/v1/", "; Path="+b.base+"/v1/", 1)
	}
	out := prefixLinks(b.body.Bytes(), b.base)
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(out)))
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.w.WriteHeader(b.status)
	b.w.Write(out)
}

// linkStarts are the byte sequences that begin a link to /v1/... in the
// backend's answers, each followed by where base goes.
var linkStarts = [][]byte{[]byte(`"href":"`), []byte(`action="`), []byte(`href="`)}

// prefixLinks puts base in front of every /v1/ link of body.
func prefixLinks(body []byte, base string) []byte {
	if !bytes.Contains(body, []byte(`"/v1/`)) {
		return body
	}
	out := body
	for _, start := range linkStarts {
		old := append(append([]byte{}, start...), "/v1/"...)
		repl := append(append(append([]byte{}, start...), base...), "/v1/"...)
		out = bytes.ReplaceAll(out, old, repl)
	}
	return out
}
