package caddymodule

import (
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

// Every answer is counted once in obgw_responses_total by who produced it:
// obgw_verify counts its refusals (the body limit's 413 included),
// obgw_error the gateway's other errors (unknown paths, handle_errors:
// 421, an unreachable backend), obgw_backend the in-process backend's
// answers, obgw_count (count.go) those a reverse_proxy passes on from a
// backend service or a bank's upstream, and obgw_ready the readiness
// answers. The route family is the
// request's {http.vars.obgw.family}, which a policy sets (obgw_verify's
// family, or vars on a route without it); "other" when none did.

// Who produced an answer: the by label.
const (
	byGateway  = "gateway"
	byBackend  = "backend"
	byUpstream = "upstream"
)

// familyVar is the request variable naming the route family.
const familyVar = "obgw.family"

// familyOther is the family of an answer outside every policy;
// familyHealth the readiness answers' (obgw_ready).
const (
	familyOther  = "other"
	familyHealth = "health"
)

// validFamily reports whether name can be a family: a metric label value
// and a variable, lower-case letters, digits and _, starting with a
// letter, at most 32 bytes.
func validFamily(name string) bool {
	if name == "" || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range []byte(name) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// statusLabels are the status label values, made once.
var statusLabels = func() (s [600]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// answered counts one answer.
func (m *metrics) answered(family string, status int, code, by string) {
	label := "other"
	if status > 0 && status < len(statusLabels) {
		label = statusLabels[status]
	}
	m.responses.WithLabelValues(family, label, code, by).Inc()
}

// requestFamily is the route family a policy gave the request, else
// "other".
func requestFamily(r *http.Request) string {
	if f, ok := caddyhttp.GetVar(r.Context(), familyVar).(string); ok && f != "" {
		return f
	}
	return familyOther
}

// answerRecorder notes the status of the answer written through it and
// the Berlin Group code of an error answer: as a value from the
// bgerror.Error written (RecordCode), as the in-process backend writes
// every error; or, with readCode, for answers that arrive as bytes from a
// backend service or a bank's upstream, from the body's start
// (bgerror.CodeOf, on an error answer's first write only): no body is
// read on a success.
type answerRecorder struct {
	caddyhttp.ResponseWriterWrapper
	status int
	code   string
	// readCode: read the code from the body of an error answer.
	readCode bool
	// counted: the handler that wrote the answer counted it (markCounted).
	counted bool
}

func (a *answerRecorder) WriteHeader(status int) {
	if a.status == 0 && status >= 200 {
		a.status = status
	}
	a.ResponseWriterWrapper.WriteHeader(status)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	} else if a.readCode && a.status >= 400 && a.code == "" {
		a.code = bgerror.CodeOf(b)
		if a.code == "" {
			a.code = noCode
		}
	}
	return a.ResponseWriterWrapper.Write(b)
}

// RecordCode is told the code of the error answer written through a.
func (a *answerRecorder) RecordCode(code string) {
	if a.code == "" {
		a.code = code
	}
}

// noCode marks an error answer whose body names no code, so later
// writes are not read either.
const noCode = "-"

// result is the status and code to count (200 for an answer that wrote
// nothing).
func (a *answerRecorder) result() (int, string) {
	status, code := a.status, a.code
	if status == 0 {
		status = http.StatusOK
	}
	if code == noCode {
		code = ""
	}
	return status, code
}

// markCounted tells the answerRecorder w writes through, if any, that the
// answer is counted by its writer: obgw_error answering in
// reverse_proxy's handle_response, inside obgw_count.
func markCounted(w http.ResponseWriter) {
	for {
		switch x := w.(type) {
		case *answerRecorder:
			x.counted = true
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}
