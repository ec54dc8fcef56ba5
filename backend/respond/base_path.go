package respond

import (
	"context"
	"net/http"
	"strings"
)

// A deployment may put a base path in front of /v1/... (contract sections
// 7 and 10: "The base path is configurable (e.g. /api-sandbox in front of
// /v1/...)"). The server in front strips it before routing and tells the
// backend with WithBasePath; the answer's links then carry it, so a TPP
// that came in under the base path follows links under it too. Every link
// a handler writes (JSON hrefs, Location, cookie paths, the pages' form
// actions and links, the provider's callback) is built with Under; the
// answer's bytes are never rewritten.

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

// BasePath is the request's base path, or "".
func BasePath(ctx context.Context) string {
	b, _ := ctx.Value(basePathKey{}).(string)
	return b
}

// Under is path, a /v1/... path of this backend, under the request's base
// path: the link to it that the answer carries.
func Under(r *http.Request, path string) string {
	if base := BasePath(r.Context()); base != "" {
		return base + path
	}
	return path
}
