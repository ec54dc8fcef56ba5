package bgerror

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// MaxTextLength is the longest text a tppMessage carries (contract section 2).
const MaxTextLength = 500

// Error is one Berlin Group error response: an HTTP status and a single
// tppMessage, optionally with an SCA redirect link and a Retry-After.
type Error struct {
	// Status is the HTTP status code of the response.
	Status int
	// Code is the Berlin Group message code, e.g. SIGNATURE_INVALID.
	Code string
	// Text says what was wrong and how to fix it. It never carries secrets
	// or whole certificates.
	Text string
	// Path names the JSON path or header the error is about, if any.
	Path string
	// SCARedirect, when set, is offered as _links.scaRedirect.
	SCARedirect string
	// RetryAfter, when positive, is sent as the Retry-After header in
	// seconds.
	RetryAfter int
	// More are further problems of the same request, each sent as another
	// tppMessage with the same code, so a TPP can fix them in one go.
	More []Detail
}

// Detail is one further problem: the path and what is wrong there.
type Detail struct {
	// Path is the JSON path or header name.
	Path string
	// Text says what is wrong.
	Text string
}

// MaxMessages bounds the tppMessages of one response.
const MaxMessages = 50

// New returns an error with the contract's status for code.
func New(code, text string) *Error {
	return &Error{Status: StatusOf(code), Code: code, Text: truncate(text)}
}

// NewStatus returns an error with an explicit HTTP status, for codes whose
// status depends on the situation (RESOURCE_UNKNOWN is 403 or 404).
func NewStatus(status int, code, text string) *Error {
	return &Error{Status: status, Code: code, Text: truncate(text)}
}

// Format returns a 400 FORMAT_ERROR about path.
func Format(path, text string) *Error {
	e := New(CodeFormatError, text)
	e.Path = path
	return e
}

// WithSCARedirect returns a copy of e offering href as _links.scaRedirect.
func (e *Error) WithSCARedirect(href string) *Error {
	c := *e
	c.SCARedirect = href
	return &c
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Path != "" {
		return e.Code + " (" + e.Path + "): " + e.Text
	}
	return e.Code + ": " + e.Text
}

type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

type message struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Text     string `json:"text,omitempty"`
	Path     string `json:"path,omitempty"`
}

type body struct {
	TPPMessages []message       `json:"tppMessages"`
	Links       map[string]link `json:"_links,omitempty"`
}

// Body returns the JSON body of the error response.
func (e *Error) Body() []byte {
	b := body{TPPMessages: []message{{Category: "ERROR", Code: e.Code, Text: e.Text, Path: e.Path}}}
	for _, d := range e.More {
		if len(b.TPPMessages) == MaxMessages {
			break
		}
		b.TPPMessages = append(b.TPPMessages, message{Category: "ERROR", Code: e.Code, Text: truncate(d.Text), Path: d.Path})
	}
	if e.SCARedirect != "" {
		b.Links = map[string]link{"scaRedirect": {Href: e.SCARedirect, Verbs: []string{"GET"}}}
	}
	out, err := json.Marshal(b)
	if err != nil {
		// Only strings and fixed shapes are marshalled; this cannot fail.
		panic("bgerror: " + err.Error())
	}
	return out
}

// CodeRecorder is a ResponseWriter that counts answers by code: Write
// tells it the error's code as a value, so that it need not read the
// code back out of the body.
type CodeRecorder interface {
	RecordCode(code string)
}

// Write sends the error response on w, and tells its code to the first
// CodeRecorder among w and the writers w wraps (Unwrap).
func (e *Error) Write(w http.ResponseWriter) {
	for x := w; x != nil; {
		if r, ok := x.(CodeRecorder); ok {
			r.RecordCode(e.Code)
			break
		}
		u, ok := x.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	out := e.Body()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	h.Set("Cache-Control", "no-store")
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(out)
}

// truncate cuts text to MaxTextLength bytes on a rune boundary and replaces
// invalid UTF-8 so that the body is always valid JSON text.
func truncate(s string) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	if len(s) <= MaxTextLength {
		return s
	}
	cut := MaxTextLength
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
