package eidas

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// Defaults of OCSPChecker and CRLFetcher for zero fields.
const (
	defaultOCSPTimeout       = 5 * time.Second
	defaultRevocationTTL     = time.Hour
	defaultOCSPCacheEntries  = 10000
	defaultOCSPResponseBytes = 64 << 10
	defaultClockSkew         = 5 * time.Minute
)

// OCSPChecker answers revocation with OCSP (RFC 6960), falling back to
// another RevocationChecker, typically a CRLFetcher, when OCSP cannot
// answer. It is safe for concurrent use; set its fields before the first
// Revoked call and do not change them afterwards.
//
// It POSTs a request (application/ocsp-request) to the responder the
// certificate names in its authority information access extension (http
// URLs only, tried in order) or to Override, and accepts a response signed
// by the certificate's issuer or by a delegated responder certificate the
// issuer issued with extended key usage OCSPSigning, about the
// certificate's issuer and serial, with thisUpdate and nextUpdate current
// within ClockSkew, and echoing the nonce if Nonce is set.
//
// Good and revoked answers are cached until nextUpdate, but no longer than
// MaxCacheTTL; concurrent checks of an uncached certificate share one
// request. A revocation always wins: a final revocation (any reason but
// certificateHold) is remembered for as long as the entry stays in the
// cache, and an expired "revoked" entry, from OCSP or from Fallback, still
// answers "revoked" when no new answer can be had.
//
// When the responder fails (network error, HTTP error, a response that is
// malformed, wrongly signed, stale or "unknown"), Revoked asks Fallback;
// if there is none or it fails too, Revoked returns an error, which the
// Verifier turns into KindUnavailable: fail closed, or whatever the
// route's on_error ocsp policy says. A responder that let a check time out
// is not asked again for TimeoutBackoff, so while it hangs each request
// goes straight to Fallback instead of waiting Timeout.
type OCSPChecker struct {
	// Client sends the requests; nil means http.DefaultClient. Timeout
	// bounds each check in any case.
	Client *http.Client
	// Override, if set, is the responder URL (http or https) asked
	// instead of the ones a certificate names, and about end-entity
	// certificates that name none. CA certificates that name none are
	// not sent to it.
	Override string
	// Fallback answers when OCSP cannot. Nil means none: an OCSP failure
	// is then an error.
	Fallback RevocationChecker
	// MaxCacheTTL bounds how long an answer is cached, even if its
	// nextUpdate is later, and how old a response without nextUpdate may
	// be. Zero means one hour; negative disables caching of answers, but
	// not the memory of revocations.
	MaxCacheTTL time.Duration
	// MaxCacheEntries bounds the number of certificates whose answer is
	// cached (least recently used go first). Zero means 10000.
	MaxCacheEntries int
	// Timeout bounds the OCSP exchange of one check, all responders
	// together. Zero means 5 s.
	Timeout time.Duration
	// MaxResponseBytes bounds the size of a response. Zero means 64 KiB.
	MaxResponseBytes int64
	// ClockSkew is the clock difference tolerated on thisUpdate and
	// nextUpdate. Zero means 5 min.
	ClockSkew time.Duration
	// Nonce sends a random nonce (RFC 8954) and requires the response to
	// echo it. Off by default: responders that serve pre-signed responses
	// (RFC 5019), as most QTSPs' do, ignore nonces.
	Nonce bool
	// TimeoutBackoff is how long a responder that let a check time out is
	// skipped. Zero means 10 s; negative means it is always asked.
	TimeoutBackoff time.Duration
	// Now returns the current time; nil means time.Now. Tests swap it.
	Now func() time.Time

	initOnce sync.Once
	cache    *lru.Cache[revocationKey, ocspEntry]
	flights  singleflight.Group // by revocationKey.flight
	timedOut sourceBackoff
}

// revocationKey identifies a certificate and the issuer it was checked
// against: SHA-256 of the certificate and of the issuer's public key.
type revocationKey struct {
	cert, issuerKey [32]byte
}

// flight is k as a singleflight key.
func (k revocationKey) flight() string {
	return string(k.cert[:]) + string(k.issuerKey[:])
}

// ocspEntry is a cached answer.
type ocspEntry struct {
	revoked bool
	// final marks a revocation that cannot be lifted: it is never asked
	// about again.
	final bool
	// expires is when the answer stops being fresh.
	expires time.Time
}

// fresh reports whether e answers without asking again at now.
func (e ocspEntry) fresh(now time.Time) bool {
	return e.final || now.Before(e.expires)
}

// Revoked reports whether cert, issued by issuer, is revoked. A
// certificate that names no http OCSP responder is left to Fallback, unless
// Override is set and it is an end-entity certificate. Without Fallback,
// that is an error for an end-entity certificate, while a CA certificate is
// taken as not revoked, since QTSPs often publish no revocation
// information for their CAs besides the trusted list.
func (c *OCSPChecker) Revoked(cert, issuer *x509.Certificate) (bool, error) {
	if !bytes.Equal(cert.RawIssuer, issuer.RawSubject) {
		return false, errors.New("eidas: OCSP check: certificate issuer name does not match the issuer's subject")
	}
	if !hasHTTPURL(cert.OCSPServer) && (c.Override == "" || cert.IsCA) {
		switch {
		case c.Fallback != nil:
			return c.Fallback.Revoked(cert, issuer)
		case cert.IsCA:
			return false, nil
		}
		return false, errors.New("eidas: certificate names no http OCSP responder and no fallback is configured")
	}
	c.initOnce.Do(c.init)
	key := revocationKey{cert: sha256.Sum256(cert.Raw), issuerKey: sha256.Sum256(issuer.RawSubjectPublicKeyInfo)}
	if e, ok := c.cache.Get(key); ok && e.fresh(c.now()) {
		return e.revoked, nil
	}
	// Concurrent checks of one certificate share one query. Should it
	// panic, every caller sharing it panics too: none reads "not revoked".
	v, err, _ := c.flights.Do(key.flight(), func() (any, error) { return c.resolve(key, cert, issuer) })
	revoked, _ := v.(bool)
	return revoked, err
}

func (c *OCSPChecker) init() {
	n := c.MaxCacheEntries
	if n <= 0 {
		n = defaultOCSPCacheEntries
	}
	c.cache, _ = lru.New[revocationKey, ocspEntry](n) // fails only for n <= 0
}

// resolve runs once per key at a time: it asks the responder, then
// Fallback, and caches what it learns.
func (c *OCSPChecker) resolve(key revocationKey, cert, issuer *x509.Certificate) (bool, error) {
	prev, hasPrev := c.cache.Peek(key)
	if hasPrev && prev.fresh(c.now()) { // answered while this call waited
		return prev.revoked, nil
	}
	a, err := c.query(cert, issuer)
	if err == nil {
		c.cache.Add(key, c.entry(a))
		return a.revoked, nil
	}
	if hasPrev && prev.revoked {
		// A certificate on hold stays revoked until a responder says
		// otherwise; an older CRL saying "good" is no such answer.
		return true, nil
	}
	if c.Fallback == nil {
		return false, err
	}
	revoked, ferr := c.Fallback.Revoked(cert, issuer)
	if ferr != nil {
		return false, fmt.Errorf("%w; fallback: %w", err, ferr)
	}
	if revoked {
		c.cache.Add(key, ocspEntry{revoked: true, expires: c.now().Add(c.ttl())})
	}
	return revoked, nil
}

// query asks the responders in turn until one gives a valid answer.
func (c *OCSPChecker) query(cert, issuer *x509.Certificate) (ocspAnswer, error) {
	urls := []string{c.Override}
	if c.Override == "" {
		urls = httpURLs(cert.OCSPServer)
	}
	if len(urls) == 0 {
		return ocspAnswer{}, errors.New("eidas: certificate names no http OCSP responder")
	}
	req, err := newOCSPRequest(cert, issuer, c.Nonce)
	if err != nil {
		return ocspAnswer{}, fmt.Errorf("eidas: OCSP request: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultOCSPTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var errs []error
	for _, u := range urls {
		if until, ok := c.timedOut.skipped(u, c.now()); ok {
			errs = append(errs, fmt.Errorf("eidas: OCSP responder %s: timed out recently, not asked until %s", u, until.UTC().Format(time.RFC3339)))
			continue
		}
		a, err := c.ask(ctx, u, req, cert, issuer)
		if err == nil {
			return a, nil
		}
		if ctx.Err() != nil {
			// This responder used up the time of the check.
			c.timedOut.add(u, c.now(), c.TimeoutBackoff)
		}
		errs = append(errs, fmt.Errorf("eidas: OCSP responder %s: %w", u, err))
	}
	return ocspAnswer{}, errors.Join(errs...)
}

// ask sends req to the responder at u and verifies its answer.
func (c *OCSPChecker) ask(ctx context.Context, u string, req ocspRequest, cert, issuer *x509.Certificate) (ocspAnswer, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(req.der))
	if err != nil {
		return ocspAnswer{}, err
	}
	hreq.Header.Set("Content-Type", "application/ocsp-request")
	hreq.Header.Set("Accept", "application/ocsp-response")
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = defaultOCSPResponseBytes
	}
	body, err := fetchBounded(client, hreq, limit)
	if err != nil {
		return ocspAnswer{}, err
	}
	skew := c.ClockSkew
	if skew <= 0 {
		skew = defaultClockSkew
	}
	maxAge := c.MaxCacheTTL
	if maxAge <= 0 {
		maxAge = defaultRevocationTTL
	}
	return verifyOCSPResponse(body, cert, issuer, ocspExpectation{nonce: req.nonce, now: c.now(), skew: skew, maxAge: maxAge})
}

// entry returns the cache entry of a: fresh until nextUpdate, or without
// one until thisUpdate plus the TTL, and never longer than the TTL.
func (c *OCSPChecker) entry(a ocspAnswer) ocspEntry {
	ttl := c.ttl()
	expires := c.now().Add(ttl)
	until := a.nextUpdate
	if until.IsZero() {
		until = a.thisUpdate.Add(ttl)
	}
	if until.Before(expires) {
		expires = until
	}
	return ocspEntry{revoked: a.revoked, final: a.revoked && !a.hold, expires: expires}
}

func (c *OCSPChecker) ttl() time.Duration {
	if c.MaxCacheTTL == 0 {
		return defaultRevocationTTL
	}
	return c.MaxCacheTTL
}

func (c *OCSPChecker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
