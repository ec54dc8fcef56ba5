package gateway

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/hygiene"
)

// MaxHeaderBytes bounds a request's headers (names and values) with a
// Berlin Group error (431 FORMAT_ERROR). It sits below the HTTP server's
// own bound (max_header_size, 64 KiB in the shipped Caddyfile), which
// answers a bare 431 that no handler sees; between the two, TPPs get an
// error body that says what was wrong.
const MaxHeaderBytes = 48 << 10

// headerBytes is the size of h as a header block, without line endings.
func headerBytes(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + 2 + len(v)
		}
	}
	return n
}

// checkHygiene runs the cheap syntactic checks: header values and formats,
// required headers and media types; the JSON body is checked by checkBody
// once it is read.
func checkHygiene(r *Request, p *Policy) *bgerror.Error {
	h := r.HTTP.Header
	if n := headerBytes(h); n > MaxHeaderBytes {
		return bgerror.NewStatus(http.StatusRequestHeaderFieldsTooLarge, bgerror.CodeFormatError,
			fmt.Sprintf("the request headers take %d bytes; at most %d are accepted", n, MaxHeaderBytes))
	}
	// A path the routes and the backend could read as two resources (dot
	// segments, ";", an encoded slash...): the site's obgw_path_check
	// refuses it first, and so does every verified route.
	if err := hygiene.CheckRequestPath(r.HTTP.URL.Path, r.HTTP.URL.EscapedPath()); err != nil {
		return hygieneError(err)
	}
	// Ids with NUL, control characters or invalid UTF-8 name no resource:
	// refuse them before the limiter, the context token or the database.
	if err := hygiene.CheckPath(r.HTTP.URL.Path); err != nil {
		return hygieneError(err)
	}
	if err := hygiene.CheckHeaders(h, hygiene.HeaderRules{AllowHTTPLocalhostRedirect: p.AllowHTTPLocalhostRedirect}); err != nil {
		return hygieneError(err)
	}
	if err := hygiene.Require(h, "X-Request-ID"); err != nil {
		return hygieneError(err)
	}
	if err := hygiene.Require(h, p.RequiredHeaders...); err != nil {
		return hygieneError(err)
	}
	if e := checkAccept(h); e != nil {
		return e
	}
	// A body announced is checked for its media type now; its bytes
	// (checkBody) only once the request is authenticated.
	if len(r.Body) > 0 || (r.ReadBody != nil && r.HTTP.ContentLength > 0) {
		if e := checkContentType(h); e != nil {
			return e
		}
	}
	return nil
}

// checkBody applies hygiene's rules to the body received: JSON, under the
// JSON limits and character rules.
func checkBody(h http.Header, body []byte) *bgerror.Error {
	if len(body) == 0 {
		return nil
	}
	if e := checkContentType(h); e != nil {
		return e
	}
	if err := hygiene.CheckJSON(body, hygiene.DefaultJSONLimits); err != nil {
		return hygieneError(err)
	}
	return nil
}

// checkContentType refuses a body that is not declared JSON (415).
func checkContentType(h http.Header) *bgerror.Error {
	if isJSONMediaType(h.Get("Content-Type")) {
		return nil
	}
	e := bgerror.NewStatus(http.StatusUnsupportedMediaType, bgerror.CodeFormatError, "the body must be JSON with Content-Type: application/json")
	e.Path = "Content-Type"
	return e
}

func hygieneError(err error) *bgerror.Error {
	var he *hygiene.Error
	if errors.As(err, &he) {
		return bgerror.Format(he.Path, he.Text)
	}
	return bgerror.New(bgerror.CodeFormatError, err.Error())
}

// isJSONMediaType accepts application/json and application/*+json, with
// parameters (a charset other than UTF-8 is refused).
func isJSONMediaType(v string) bool {
	if v == "application/json" {
		return true
	}
	mt, params, err := mime.ParseMediaType(v)
	if err != nil {
		return false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// checkAccept refuses an Accept header that rules out JSON (406).
func checkAccept(h http.Header) *bgerror.Error {
	vals := h["Accept"]
	if len(vals) == 0 {
		return nil
	}
	for _, v := range vals {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
				continue // q=0: explicitly not acceptable
			}
			switch {
			case mt == "*/*", mt == "application/*", mt == "application/json",
				strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
				return nil
			}
		}
	}
	e := bgerror.New(bgerror.CodeRequestedFormats, "this interface answers only application/json; accept it in the Accept header")
	e.Path = "Accept"
	return e
}
