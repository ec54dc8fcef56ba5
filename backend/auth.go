package backend

import (
	"net/http"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// authenticated admits only requests with a valid gateway context token
// issued for this very request (its X-Request-ID), then runs h and writes
// the error h returns, if any.
func (s *Server) authenticated(h func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header[tppcontext.Header]
		if len(vals) != 1 || s.cfg.Tokens == nil {
			bgerror.New(bgerror.CodeCertificateInvalid, "the request did not pass the bank's gateway").Write(w)
			return
		}
		c, err := s.cfg.Tokens.Verify(vals[0], s.cfg.Now())
		if err != nil || c.RequestID != r.Header.Get("X-Request-Id") {
			bgerror.New(bgerror.CodeCertificateInvalid, "the request did not pass the bank's gateway").Write(w)
			return
		}
		if e := h(w, r, c); e != nil {
			e.Write(w)
		}
	})
}
