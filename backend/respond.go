package backend

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// link is a Berlin Group link object.
type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

func get(href string) link { return link{Href: href, Verbs: []string{"GET"}} }

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
// 404, an unreachable database to 503, never 500.
func storeError(err error, what string) *bgerror.Error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, what+" is unknown")
	default:
		return bgerror.New(bgerror.CodeServiceUnavailable, "the bank's systems are temporarily unavailable; retry later")
	}
}
