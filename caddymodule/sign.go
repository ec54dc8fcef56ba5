package caddymodule

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/hygiene"
	"github.com/obgw/obgw/gateway/seal"
	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/pkcs11key"
)

func init() {
	caddy.RegisterModule(Sign{})
}

// DefaultMaxSignedResponse bounds the response body obgw_sign holds to
// sign: far above the backend's largest page.
const DefaultMaxSignedResponse = 16 << 20

// loadSeal reads bank_seal_cert and bank_seal_key, if set.
func (a *App) loadSeal() error {
	if a.BankSealCert == "" && a.BankSealKey == "" {
		return nil
	}
	if a.BankSealCert == "" || a.BankSealKey == "" {
		return fmt.Errorf("obgw: bank_seal_cert and bank_seal_key go together: set both (OBGW_BANK_SEAL_CERT, OBGW_BANK_SEAL_KEY) or neither")
	}
	certPEM, err := os.ReadFile(a.BankSealCert)
	if err != nil {
		return fmt.Errorf("obgw: bank_seal_cert: %v", err)
	}
	if !pkcs11key.IsURI(a.BankSealKey) {
		keyPEM, err := os.ReadFile(a.BankSealKey)
		if err != nil {
			return fmt.Errorf("obgw: bank_seal_key: %v", err)
		}
		if a.seal, err = seal.Load(certPEM, keyPEM); err != nil {
			return fmt.Errorf("obgw: bank seal %s with key %s: %v", a.BankSealCert, a.BankSealKey, err)
		}
		a.validity.seal = a.seal.Certificate()
		return nil
	}
	certs, err := pemfile.Certificates(certPEM)
	if err != nil {
		return fmt.Errorf("obgw: bank_seal_cert %s: %v", a.BankSealCert, err)
	}
	loc, err := pkcs11key.Parse(a.BankSealKey)
	if err != nil {
		return fmt.Errorf("obgw: bank_seal_key: %v", err)
	}
	if a.sealKey, err = pkcs11key.Open(loc); err != nil {
		return fmt.Errorf("obgw: bank_seal_key: %v", err)
	}
	if a.seal, err = seal.New(certs[0], a.sealKey); err != nil {
		a.sealKey.Close()
		return fmt.Errorf("obgw: bank seal %s with key %s: %v", a.BankSealCert, loc, err)
	}
	a.validity.seal = a.seal.Certificate()
	return nil
}

// Sign is the obgw_sign handler: it signs the response with the bank's
// seal (the obgw app's bank_seal_cert and bank_seal_key): Digest of the
// exact body bytes sent, Date, Signature over date, digest and
// x-request-id, and the certificate in ASPSP-Signature-Certificate (see
// package gateway/seal). It echoes the request's X-Request-ID, when that
// is one UUID, and signs it. Place it outside every handler that writes or
// rewrites the body (obgw_fixes, obgw_verify's refusals, the backend), and
// in handle_errors for the answers of failed handlers. The body is held
// until it is complete: a signed response is never streamed.
type Sign struct {
	// MaxResponse bounds the body held for signing; a larger response is
	// replaced by a signed 503 (and logged). Default 16 MiB.
	MaxResponse int64 `json:"max_response,omitempty"`

	seal   *seal.Seal
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Sign) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.obgw_sign",
		New: func() caddy.Module { return new(Sign) },
	}
}

// Provision takes the seal from the obgw app.
func (s *Sign) Provision(ctx caddy.Context) error {
	s.logger = ctx.Logger()
	if s.MaxResponse <= 0 {
		s.MaxResponse = DefaultMaxSignedResponse
	}
	a, err := ctx.App("obgw")
	if err != nil {
		return fmt.Errorf("obgw_sign: loading the obgw app: %v", err)
	}
	s.seal = a.(*App).seal
	if s.seal == nil {
		return fmt.Errorf("obgw_sign: the obgw app has no bank seal to sign with: set bank_seal_cert and bank_seal_key (OBGW_BANK_SEAL_CERT, OBGW_BANK_SEAL_KEY)")
	}
	return nil
}

var signBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// signedVar marks a request whose route signs: handle_errors's obgw_sign
// signs the error answers of those routes only.
const signedVar = "obgw.signed"

// authenticatedVar marks a request that obgw_verify authenticated: its
// signature verified, or the route's policy let it through (see
// publish). Only the answers to those are sealed.
const authenticatedVar = "obgw.authenticated"

// authenticated reports whether obgw_verify authenticated r.
func authenticated(r *http.Request) bool {
	ok, _ := caddyhttp.GetVar(r.Context(), authenticatedVar).(bool)
	return ok
}

// ServeHTTP signs what next answers, when the request authenticated: a
// refusal before that (no certificate or an untrusted one, no valid
// signature, malformed headers, a path or body refused before any check)
// goes out unsigned, so that a client without credentials cannot make the
// bank spend a signature on each of its requests. Such a refusal holds
// nothing of the bank's but a Berlin Group error code; the description
// makes the response signature optional ("may"). In handle_errors it
// signs only the answers to requests whose route had obgw_sign.
func (s *Sign) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if _, handlingError := r.Context().Value(caddyhttp.ErrorCtxKey).(error); handlingError {
		if signed, _ := caddyhttp.GetVar(r.Context(), signedVar).(bool); !signed {
			return next.ServeHTTP(w, r)
		}
	} else {
		caddyhttp.SetVar(r.Context(), signedVar, true)
	}
	if ids := r.Header.Values("X-Request-Id"); len(ids) == 1 && hygiene.IsUUID(ids[0]) {
		w.Header().Set("X-Request-ID", ids[0])
	}
	buf := signBufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 {
			signBufPool.Put(buf)
		}
	}()
	rec := &sealRecorder{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, buf: buf, max: s.MaxResponse}
	if err := next.ServeHTTP(rec, r); err != nil {
		// handle_errors answers (and its obgw_sign signs).
		return err
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	body := buf.Bytes()
	h := w.Header()
	if rec.tooLarge {
		s.logger.Error("response too large to sign: answered 503 instead",
			zap.Int64("max_response", s.MaxResponse), zap.Int("status", status))
		for k := range h {
			if k != "X-Request-Id" && k != "X-Accept-Fix" {
				delete(h, k)
			}
		}
		var b bytes.Buffer
		e := bgerror.New(bgerror.CodeServiceUnavailable, "the response is too large to sign; ask for less (a smaller page or date range)")
		ew := &headerOnly{h: h, body: &b}
		e.Write(ew)
		status, body = ew.status, b.Bytes()
	}
	// The body is sent as it was written: a transfer length, not an
	// encoding, changes; a Content-Encoding a backend chose is kept and
	// the Digest is of the encoded bytes.
	if len(body) > 0 || r.Method != http.MethodHead {
		// (A HEAD answer keeps the length of the GET's body.)
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	if !authenticated(r) {
		w.WriteHeader(status)
		_, err := w.Write(body)
		return err
	}
	if err := s.seal.Sign(h, body, now()); err != nil {
		// Only a signed header sent twice gets here: nothing the TPP
		// can read without it being signed.
		s.logger.Error("response not signed: answered 503 instead", zap.Error(err))
		for _, k := range []string{"Digest", "Signature", seal.CertificateHeader} {
			h.Del(k)
		}
		bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be signed; retry later").Write(w)
		return nil
	}
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// sealRecorder holds a response for signing: status, and a body of at
// most max bytes (beyond it, tooLarge and the rest dropped). Flushes wait
// for the whole body.
type sealRecorder struct {
	*caddyhttp.ResponseWriterWrapper
	buf      *bytes.Buffer
	max      int64
	status   int
	tooLarge bool
}

// WriteHeader records the status; informational ones go out as they come.
func (r *sealRecorder) WriteHeader(status int) {
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		r.ResponseWriterWrapper.WriteHeader(status)
		return
	}
	if r.status == 0 {
		r.status = status
	}
}

// Write holds p.
func (r *sealRecorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.tooLarge || int64(r.buf.Len()+len(p)) > r.max {
		r.tooLarge = true
		r.buf.Reset()
		return len(p), nil
	}
	return r.buf.Write(p)
}

// FlushError holds the flush back: nothing leaves before the signature.
func (r *sealRecorder) FlushError() error { return nil }

// Flush holds the flush back too.
func (r *sealRecorder) Flush() {}

// headerOnly collects what a bgerror writes into h and body.
type headerOnly struct {
	h      http.Header
	body   *bytes.Buffer
	status int
}

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) WriteHeader(status int)      { w.status = status }
func (w *headerOnly) Write(p []byte) (int, error) { return w.body.Write(p) }

// Interface guards.
var (
	_ caddy.Provisioner           = (*Sign)(nil)
	_ caddyhttp.MiddlewareHandler = (*Sign)(nil)
	_ http.Flusher                = (*sealRecorder)(nil)
)
