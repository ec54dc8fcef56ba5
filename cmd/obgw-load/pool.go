package main

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/obgw/obgw/tppclient"
)

// requestSource hands the workers the next request to send; ok false ends
// the run.
type requestSource interface {
	next() (req *http.Request, ok bool)
}

// signedPool is a set of requests, signed and re-signed in the background,
// sent round and round: for routes whose replay check is in report_only.
type signedPool struct {
	mu      sync.RWMutex
	reqs    []*http.Request
	counter atomic.Int64
}

func (p *signedPool) next() (*http.Request, bool) {
	i := int(p.counter.Add(1))
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.reqs[i%len(p.reqs)], true
}

func (p *signedPool) replace(reqs []*http.Request) {
	p.mu.Lock()
	p.reqs = reqs
	p.mu.Unlock()
}

// oncePool hands out each of its requests once, then reports the pool
// used up: for routes that enforce replay protection, where a request sent
// twice is refused.
type oncePool struct {
	reqs      []*http.Request
	taken     atomic.Int64
	exhausted atomic.Bool
}

func (p *oncePool) next() (*http.Request, bool) {
	i := int(p.taken.Add(1)) - 1
	if i >= len(p.reqs) {
		p.exhausted.Store(true)
		return nil, false
	}
	return p.reqs[i], true
}

// buildPool makes n requests of cfg (method, target, headers and body),
// each signed by s (unsigned when s is nil) with its own X-Request-ID, the
// current Date and, with a body, its Digest. Signing costs about a
// millisecond of RSA each, so it runs on every CPU.
func buildPool(cfg loadConfig, n int, s *tppclient.Signer) ([]*http.Request, error) {
	out := make([]*http.Request, n)
	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		errOnce  sync.Once
		firstErr error
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				req, err := newRequest(cfg, s)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				out[i] = req
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// newRequest builds one request of cfg. Signed, it is tppclient's request
// (Signer.NewRequest: Date, X-Request-ID, Digest of the body,
// TPP-Signature-Certificate, Signature; Content-Type application/json with
// a body and Accept application/json unless -H gives them); unsigned, the
// same method, headers and body without the signing headers. The body is
// re-readable (GetBody), so a pool's request can be sent more than once.
func newRequest(cfg loadConfig, s *tppclient.Signer) (*http.Request, error) {
	method := cmp.Or(cfg.method, http.MethodGet)
	if s != nil {
		return s.NewRequest(context.Background(), method, cfg.target, cfg.headers, cfg.body)
	}
	var body io.Reader
	if len(cfg.body) > 0 {
		body = bytes.NewReader(cfg.body)
	}
	req, err := http.NewRequest(method, cfg.target, body)
	if err != nil {
		return nil, err
	}
	req.Header = cfg.headers.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if len(cfg.body) > 0 && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	return req, nil
}
