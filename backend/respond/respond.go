// Package respond writes the backend's answers that every concern shares:
// JSON bodies, the Berlin Group error of a store failure, the errors of a
// body a strict parser refused, the bounded read of a request body, and
// the links an answer carries (Link, Get), under the request's base path
// (Under).
// The concern packages (backend/tppcontacts, and those the backend is
// split into) answer through it, so none needs package backend.
package respond

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/strictjson"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Handler serves one request the gateway verified: c is its valid
// context token. The error it returns, if any, is the answer. Every
// concern's handlers are Handlers; the backend wraps them in the check of
// the token.
type Handler = func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error

// JSON sends v with status.
func JSON(w http.ResponseWriter, status int, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be built").Write(w)
		return
	}
	JSONBytes(w, status, out)
}

// JSONBytes answers status with out, a JSON document.
func JSONBytes(w http.ResponseWriter, status int, out []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// StoreError maps a store failure to the TPP's error: unknown resources to
// 404, anything else to 503 (never 500), logging the cause on log. The
// log line names what was being done and the error, which carries no
// secret; ids of resources are opaque, and PSU identifiers or account
// numbers are not in store errors.
func StoreError(log *slog.Logger, err error, what string) *bgerror.Error {
	if errors.Is(err, store.ErrNotFound) {
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, what+" is unknown")
	}
	log.Error("store failure", slog.String("resource", what), slog.Any("error", err))
	return bgerror.New(bgerror.CodeServiceUnavailable, "the bank's systems are temporarily unavailable; retry later")
}

// MaxBody bounds a request body (the gateway's max_body caps it first).
const MaxBody = 1 << 20

// Body reads a request body of at most MaxBody bytes.
func Body(r *http.Request) ([]byte, *bgerror.Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil || len(b) > MaxBody {
		return nil, bgerror.New(bgerror.CodeFormatError, "the body could not be read or is over 1 MiB")
	}
	return b, nil
}

// FieldErrors turns the problems a strict parser found in a body
// (payment, mock data, TPP contacts) into one 400 FORMAT_ERROR listing
// every problem as its own tppMessage.
func FieldErrors(errs []strictjson.FieldError) *bgerror.Error {
	e := bgerror.Format(errs[0].Path, errs[0].Rule)
	for _, fe := range errs[1:] {
		e.More = append(e.More, bgerror.Detail{Path: fe.Path, Text: fe.Rule})
	}
	return e
}
