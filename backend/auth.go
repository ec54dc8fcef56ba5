package backend

import (
	"net/http"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// identityChecks are the gateway checks that establish who the TPP is; a
// token saying one of them only reported a failure (report_only) names no
// TPP the backend can trust.
var identityChecks = map[string]bool{"certificate": true, "signature": true}

// authenticated admits only requests with a valid gateway context token
// issued for this very request (its X-Request-ID), whose TPP identity the
// gateway verified and which grants role (when not empty), then runs h and
// writes the error h returns, if any.
func (s *Server) authenticated(role string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(e *bgerror.Error) {
			traceError(r, e)
			e.Write(w)
		}
		vals := r.Header[tppcontext.Header]
		if len(vals) != 1 || s.cfg.Tokens == nil {
			refuse(bgerror.New(bgerror.CodeCertificateInvalid, "the request did not pass the bank's gateway"))
			return
		}
		// The gateway in this process hands over what it issued; a token
		// from elsewhere is verified.
		c, ok := tppcontext.Issued(r.Context(), vals[0])
		var err error
		if !ok {
			c, err = s.cfg.Tokens.Verify(vals[0], s.cfg.Now())
		}
		if err != nil || !c.IsFor(r.Method, r.URL.Path, r.Header.Get("X-Request-Id")) {
			refuse(bgerror.New(bgerror.CodeCertificateInvalid, "the request did not pass the bank's gateway"))
			return
		}
		for _, u := range c.Unverified {
			if identityChecks[u] {
				refuse(bgerror.New(bgerror.CodeCertificateInvalid, "the TPP's identity was not verified"))
				return
			}
		}
		traceTPP(r, c.TPP)
		if role != "" && !c.HasRole(role) {
			refuse(bgerror.New(bgerror.CodeRoleInvalid, "this service needs role "+role))
			return
		}
		if s.cfg.Sandbox {
			if e := s.sandbox.Open(r.Context(), c.TPP); e != nil {
				refuse(e)
				return
			}
		}
		if e := h(w, r, c); e != nil {
			refuse(e)
		}
	})
}
