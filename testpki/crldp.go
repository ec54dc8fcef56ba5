package testpki

import (
	"crypto/x509"
	"net/http"
	"sync/atomic"
)

// CRLDistributionPoint is an http.Handler serving one CRL in DER
// (application/pkix-crl) at any path, as a CRL distribution point does. It
// counts the requests it serves. Its methods are safe for concurrent use.
type CRLDistributionPoint struct {
	crl      atomic.Pointer[x509.RevocationList]
	requests atomic.Int64
}

// NewCRLDistributionPoint returns a distribution point serving crl.
func NewCRLDistributionPoint(crl *x509.RevocationList) *CRLDistributionPoint {
	d := &CRLDistributionPoint{}
	d.crl.Store(crl)
	return d
}

// SetCRL replaces the CRL served, as a CA publishing a new one does.
func (d *CRLDistributionPoint) SetCRL(crl *x509.RevocationList) { d.crl.Store(crl) }

// Requests returns the number of HTTP requests served so far.
func (d *CRLDistributionPoint) Requests() int64 { return d.requests.Load() }

// ServeHTTP answers GET and HEAD with the CRL's DER.
func (d *CRLDistributionPoint) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	d.requests.Add(1)
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "CRLs are fetched by GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/pkix-crl")
	_, _ = w.Write(d.crl.Load().Raw)
}
