package eidas

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// Defaults of CRLFetcher for zero fields, and fixed limits.
const (
	defaultCRLTimeout = 15 * time.Second
	defaultCRLBytes   = 10 << 20
	// crlCacheEntries bounds the CRLs kept: one per distribution point
	// and issuer, a handful per QTSP.
	crlCacheEntries = 64
	// crlRetryInterval spaces out refetches of a CRL that is due for
	// refresh, still valid, and whose distribution point fails.
	crlRetryInterval = time.Minute
)

// errSourceTimedOut marks a download that used up its timeout.
var errSourceTimedOut = errors.New("timed out")

// oidDeltaCRLIndicator marks a delta CRL (RFC 5280 5.2.4), which lists
// only changes and so cannot answer alone.
var oidDeltaCRLIndicator = asn1.ObjectIdentifier{2, 5, 29, 27}

// CRLFetcher answers revocation from the CRLs that certificates name in
// their CRL distribution points extension, downloaded over http (DER, or
// PEM "X509 CRL") and checked against the certificate's issuer. It serves
// as OCSPChecker.Fallback, or alone. It is safe for concurrent use; set
// its fields before the first Revoked call.
//
// A CRL is refetched after MaxCacheTTL or at its nextUpdate, whichever
// comes first; if the distribution point then fails, the cached CRL goes
// on answering until its nextUpdate. Concurrent fetches of one CRL are
// shared. A CRL past its nextUpdate still proves a revocation it lists,
// but never that a certificate is good.
type CRLFetcher struct {
	// Client fetches the CRLs; nil means http.DefaultClient.
	Client *http.Client
	// Timeout bounds one check's downloads. Zero means 15 s.
	Timeout time.Duration
	// MaxCRLBytes bounds the size of a CRL. Zero means 10 MiB.
	MaxCRLBytes int64
	// MaxCacheTTL bounds how long a CRL is used before it is fetched
	// again, even if its nextUpdate is later. Zero means one hour;
	// negative fetches on every check (the cached CRL still answers while
	// the distribution point fails).
	MaxCacheTTL time.Duration
	// ClockSkew is the clock difference tolerated on thisUpdate and
	// nextUpdate. Zero means 5 min.
	ClockSkew time.Duration
	// TimeoutBackoff is how long a distribution point whose download timed
	// out is not asked again, while no cached CRL can answer for it. Zero
	// means 10 s; negative means it is always asked.
	TimeoutBackoff time.Duration
	// Now returns the current time; nil means time.Now. Tests swap it.
	Now func() time.Time

	initOnce sync.Once
	cache    *lru.Cache[crlKey, *fetchedCRL]
	flights  singleflight.Group // by crlKey.flight
	timedOut sourceBackoff
}

// crlKey identifies a CRL: its URL and the issuer it was verified with.
type crlKey struct {
	url       string
	issuerKey [32]byte
}

// flight is k as a singleflight key: the fixed-length issuer key first, so
// no two keys give one string.
func (k crlKey) flight() string {
	return string(k.issuerKey[:]) + k.url
}

// fetchedCRL is a verified CRL reduced to what lookups need. It is not
// modified once cached.
type fetchedCRL struct {
	serials    map[string]struct{} // big-endian serial bytes
	nextUpdate time.Time
	refreshAt  time.Time
}

// lists reports whether the CRL lists serial.
func (l *fetchedCRL) lists(serial *big.Int) bool {
	var buf [32]byte
	if (serial.BitLen()+7)/8 <= len(buf) {
		b := serial.FillBytes(buf[:])
		// FillBytes pads on the left; the map holds minimal encodings.
		b = b[len(b)-(serial.BitLen()+7)/8:]
		_, ok := l.serials[string(b)]
		return ok
	}
	_, ok := l.serials[string(serial.Bytes())]
	return ok
}

// Revoked reports whether cert is listed in a CRL from one of its http
// distribution points, signed by issuer and current. It tries the
// distribution points in order until one answers. A certificate that
// names none is an error for an end-entity certificate, and not revoked
// for a CA certificate.
func (f *CRLFetcher) Revoked(cert, issuer *x509.Certificate) (bool, error) {
	if !bytes.Equal(cert.RawIssuer, issuer.RawSubject) {
		return false, errors.New("eidas: CRL check: certificate issuer name does not match the issuer's subject")
	}
	if !hasHTTPURL(cert.CRLDistributionPoints) {
		if cert.IsCA {
			return false, nil
		}
		return false, errors.New("eidas: certificate names no http CRL distribution point")
	}
	f.initOnce.Do(f.init)
	issuerKey := sha256.Sum256(issuer.RawSubjectPublicKeyInfo)
	var errs []error
	for _, u := range cert.CRLDistributionPoints {
		if !isHTTPURL(u) {
			continue
		}
		l, stale, err := f.list(crlKey{url: u, issuerKey: issuerKey}, issuer)
		if err == nil {
			return l.lists(cert.SerialNumber), nil
		}
		if stale != nil && stale.lists(cert.SerialNumber) {
			return true, nil
		}
		errs = append(errs, fmt.Errorf("eidas: CRL %s: %w", u, err))
	}
	return false, errors.Join(errs...)
}

func (f *CRLFetcher) init() {
	f.cache, _ = lru.New[crlKey, *fetchedCRL](crlCacheEntries)
}

// list returns the current CRL of key, fetching it if due. When there is
// none, it returns an error and, if it has one, a CRL past its nextUpdate,
// which can still prove a revocation.
func (f *CRLFetcher) list(key crlKey, issuer *x509.Certificate) (current, stale *fetchedCRL, err error) {
	if l, ok := f.cache.Get(key); ok && f.now().Before(l.refreshAt) {
		return l, nil, nil
	}
	// Concurrent checks share one download per CRL. Should it panic, every
	// caller sharing it panics too: none reads "not revoked".
	v, err, _ := f.flights.Do(key.flight(), func() (any, error) {
		if l, ok := f.cache.Peek(key); ok && f.now().Before(l.refreshAt) {
			return l, nil
		}
		var l *fetchedCRL
		var err error
		if until, skip := f.timedOut.skipped(key.url, f.now()); skip {
			err = fmt.Errorf("timed out recently, not asked until %s", until.UTC().Format(time.RFC3339))
		} else if l, err = f.fetch(key.url, issuer); errors.Is(err, errSourceTimedOut) {
			f.timedOut.add(key.url, f.now(), f.TimeoutBackoff)
		}
		if err == nil {
			f.cache.Add(key, l)
			return l, nil
		}
		old, ok := f.cache.Peek(key)
		if ok && !f.now().After(old.nextUpdate.Add(f.skew())) {
			// Still valid: keep answering with it, and try again later.
			retry := *old
			retry.refreshAt = f.now().Add(crlRetryInterval)
			f.cache.Add(key, &retry)
			return &retry, nil
		}
		if l == nil && ok {
			l = old
		}
		return l, err
	})
	fetched, _ := v.(*fetchedCRL)
	if err != nil {
		return nil, fetched, err
	}
	return fetched, nil, nil
}

// fetch downloads and verifies the CRL at u. For a verified CRL past its
// nextUpdate it returns the CRL and an error.
func (f *CRLFetcher) fetch(u string, issuer *x509.Certificate) (*fetchedCRL, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = defaultCRLTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	limit := f.MaxCRLBytes
	if limit <= 0 {
		limit = defaultCRLBytes
	}
	der, err := fetchBounded(client, req, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", errSourceTimedOut, err)
		}
		return nil, err
	}
	if block, _ := pem.Decode(der); block != nil && block.Type == "X509 CRL" {
		der = block.Bytes
	}
	crl, err := x509.ParseRevocationList(der)
	if err != nil {
		return nil, errors.New("response is not a DER or PEM X.509 CRL")
	}
	if !bytes.Equal(crl.RawIssuer, issuer.RawSubject) || crl.CheckSignatureFrom(issuer) != nil {
		return nil, errors.New("CRL is not signed by the certificate's CA")
	}
	for _, e := range crl.Extensions {
		if e.Id.Equal(oidDeltaCRLIndicator) {
			return nil, errors.New("distribution point serves a delta CRL, which cannot answer alone")
		}
	}
	if crl.NextUpdate.IsZero() {
		return nil, errors.New("CRL has no nextUpdate (RFC 5280 requires one)")
	}
	now, skew := f.now(), f.skew()
	if crl.ThisUpdate.After(now.Add(skew)) {
		return nil, fmt.Errorf("CRL thisUpdate %s is in the future; check the clocks", crl.ThisUpdate.UTC().Format(time.RFC3339))
	}
	l := &fetchedCRL{
		serials:    make(map[string]struct{}, len(crl.RevokedCertificateEntries)),
		nextUpdate: crl.NextUpdate,
	}
	for _, e := range crl.RevokedCertificateEntries {
		l.serials[string(e.SerialNumber.Bytes())] = struct{}{}
	}
	if now.Add(-skew).After(crl.NextUpdate) {
		return l, fmt.Errorf("CRL is stale: nextUpdate %s has passed", crl.NextUpdate.UTC().Format(time.RFC3339))
	}
	ttl := f.MaxCacheTTL
	if ttl == 0 {
		ttl = defaultRevocationTTL
	}
	l.refreshAt = now.Add(ttl)
	if crl.NextUpdate.Before(l.refreshAt) {
		l.refreshAt = crl.NextUpdate
	}
	return l, nil
}

func (f *CRLFetcher) skew() time.Duration {
	if f.ClockSkew <= 0 {
		return defaultClockSkew
	}
	return f.ClockSkew
}

func (f *CRLFetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}
