package backend

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/strictjson"
	"github.com/obgw/obgw/bgerror"
)

// link is a Berlin Group link object.
type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

// get is a link to href that takes GET. Its verbs are one slice shared
// by every such link: links are written out, never changed.
func get(href string) link { return link{Href: href, Verbs: getVerbs} }

// getVerbs is the verbs of every link get makes; its capacity is its
// length, so an append would copy it.
var getVerbs = []string{"GET"}[:1:1]

// writeJSON sends v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be built").Write(w)
		return
	}
	writeJSONBytes(w, status, out)
}

// writeJSONBytes answers status with out, a JSON document.
func writeJSONBytes(w http.ResponseWriter, status int, out []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// storeError maps a store failure to the TPP's error: unknown resources to
// 404, anything else to 503 (never 500), logging the cause. The log line
// names what was being done and the error, which carries no secret; ids
// of resources are opaque, and PSU identifiers or account numbers are not
// in store errors.
func (s *Server) storeError(err error, what string) *bgerror.Error {
	if errors.Is(err, store.ErrNotFound) {
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, what+" is unknown")
	}
	s.log.Error("store failure", slog.String("resource", what), slog.Any("error", err))
	return bgerror.New(bgerror.CodeServiceUnavailable, "the bank's systems are temporarily unavailable; retry later")
}

// readBody reads a request body of at most maxBody bytes.
func readBody(r *http.Request) ([]byte, *bgerror.Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(b) > maxBody {
		return nil, bgerror.New(bgerror.CodeFormatError, "the body could not be read or is over 1 MiB")
	}
	return b, nil
}

// maxBody bounds a request body (the gateway's max_body caps it first).
const maxBody = 1 << 20

// fieldErrors turns the problems a strict parser found in a body (payment,
// mock data, TPP contacts) into one 400 FORMAT_ERROR listing every problem
// as its own tppMessage.
func fieldErrors(errs []strictjson.FieldError) *bgerror.Error {
	e := bgerror.Format(errs[0].Path, errs[0].Rule)
	for _, fe := range errs[1:] {
		e.More = append(e.More, bgerror.Detail{Path: fe.Path, Text: fe.Rule})
	}
	return e
}

// randomToken returns 32 random bytes, URL-safe base64 encoded.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
