// Command obgw-load is obgw's load generator: it pre-signs a pool of
// distinct valid TPP requests (fresh Date, unique X-Request-IDs, the test
// PKI's certificates), replays them over keep-alive HTTPS with N
// connections for a fixed time, re-signing the pool before the Dates go
// stale, and reports req/s, p50, p99, p99.9 and errors as JSON. With
// -upstream it instead serves a 1 KiB JSON body, as the small upstream of
// the reverse_proxy comparison.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obgw/obgw/tppclient"
)

// Body1K is the 1 KiB JSON answer of the benchmark routes and upstream.
var Body1K = func() []byte {
	b := []byte(`{"accounts":[`)
	for i := 0; len(b) < 1000; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, fmt.Sprintf(`{"resourceId":"enc!!acc%03d","currency":"NOK","name":"Brukskonto"}`, i)...)
	}
	return append(b, "]}"...)
}()

// Result is one run's numbers.
type Result struct {
	Label       string  `json:"label"`
	URL         string  `json:"url"`
	Connections int     `json:"connections"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	P999us      float64 `json:"p999_us"`
}

func main() {
	var (
		upstream = flag.String("upstream", "", "serve the 1 KiB JSON body on this address instead of generating load")
		target   = flag.String("url", "https://localhost:8443/bench", "target URL")
		conns    = flag.Int("c", 16, "connections")
		dur      = flag.Duration("d", 10*time.Second, "duration")
		pkiDir   = flag.String("pki", "testdata/pki", "test PKI directory")
		tpp      = flag.String("tpp", "tpp", "test TPP to sign as")
		pool     = flag.Int("pool", 512, "pre-signed requests in the pool")
		unsigned = flag.Bool("unsigned", false, "send the pool's requests without signing (stock server baseline gets the same headers either way)")
		label    = flag.String("label", "", "label of the result")
		headers  = flag.String("H", "TPP-Redirect-URI: https://tpp.example.no/cb", "extra headers, separated by ';'")
	)
	flag.Parse()
	if *upstream != "" {
		serveUpstream(*upstream)
		return
	}
	res, err := run(*target, *conns, *dur, *pkiDir, *tpp, *pool, *unsigned, *headers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "obgw-load:", err)
		os.Exit(1)
	}
	res.Label = *label
	_ = json.NewEncoder(os.Stdout).Encode(res)
}

func serveUpstream(addr string) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(Body1K)
	})
	fmt.Fprintln(os.Stderr, (&http.Server{Addr: addr, Handler: h}).ListenAndServe())
}

// signedPool is a set of requests, signed and re-signed in the background.
type signedPool struct {
	mu   sync.RWMutex
	reqs []*http.Request
}

func (p *signedPool) get(i int) *http.Request {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.reqs[i%len(p.reqs)]
}

func buildPool(target string, n int, s *tppclient.Signer, headers string) ([]*http.Request, error) {
	out := make([]*http.Request, n)
	for i := range out {
		req, err := http.NewRequest(http.MethodGet, target, nil)
		if err != nil {
			return nil, err
		}
		for _, h := range strings.Split(headers, ";") {
			if k, v, ok := strings.Cut(h, ":"); ok {
				req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
		req.Header.Set("Accept", "application/json")
		if s != nil {
			if err := s.Sign(req, nil); err != nil {
				return nil, err
			}
		}
		out[i] = req
	}
	return out, nil
}

func run(target string, conns int, dur time.Duration, pkiDir, tpp string, n int, unsigned bool, headers string) (*Result, error) {
	keyPEM, err := os.ReadFile(filepath.Join(pkiDir, tpp+"-qseal-key.pem"))
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(pkiDir, tpp+"-qseal.pem"))
	if err != nil {
		return nil, err
	}
	signer, err := tppclient.NewSigner(keyPEM, certPEM)
	if err != nil {
		return nil, err
	}
	if unsigned {
		signer = nil
	}
	roots := x509.NewCertPool()
	if ca, err := os.ReadFile(filepath.Join(pkiDir, "tls-ca.pem")); err == nil {
		roots.AppendCertsFromPEM(ca)
	}
	reqs, err := buildPool(target, n, signer, headers)
	if err != nil {
		return nil, err
	}
	p := &signedPool{reqs: reqs}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	// Re-sign the pool every 20 s, well inside the 60 s Date window.
	go func() {
		t := time.NewTicker(20 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if fresh, err := buildPool(target, n, signer, headers); err == nil {
					p.mu.Lock()
					p.reqs = fresh
					p.mu.Unlock()
				}
			}
		}
	}()
	var (
		wg       sync.WaitGroup
		errs     atomic.Int64
		mu       sync.Mutex
		all      []time.Duration
		counter  atomic.Int64
		started  = time.Now()
		firstErr atomic.Value
	)
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
				MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true}
			client := &http.Client{Transport: tr}
			defer tr.CloseIdleConnections()
			lat := make([]time.Duration, 0, 1<<14)
			for ctx.Err() == nil {
				base := p.get(int(counter.Add(1)))
				req := base.Clone(ctx)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(t0))
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, resp.Status)
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(started).Seconds()
	if e := firstErr.Load(); e != nil {
		fmt.Fprintln(os.Stderr, "obgw-load: first error:", e)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no request completed")
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(q float64) float64 {
		return float64(all[min(len(all)-1, int(q*float64(len(all))))].Microseconds())
	}
	return &Result{URL: target, Connections: conns, Seconds: elapsed, Requests: len(all), Errors: int(errs.Load()),
		RPS: float64(len(all)) / elapsed, P50us: pct(0.50), P99us: pct(0.99), P999us: pct(0.999)}, nil
}
