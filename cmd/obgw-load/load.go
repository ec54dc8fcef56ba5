package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obgw/obgw/tppclient"
)

// loadConfig is one run's settings (the command-line flags).
type loadConfig struct {
	target   string
	method   string
	body     []byte
	status   int
	conns    int
	dur      time.Duration
	pkiDir   string
	tpp      string
	pool     int
	once     bool
	unsigned bool
	headers  http.Header
}

// dateWindow is how long after signing a request still passes the
// gateway's Date check (60 s), with a margin for the clocks.
const dateWindow = 50 * time.Second

// warmUp is the unmeasured run that sizes a -once pool.
const warmUp = time.Second

// loadSigner reads the test TPP's QSealC and key from the test PKI.
func loadSigner(pkiDir, tpp string) (*tppclient.Signer, error) {
	keyPEM, err := os.ReadFile(filepath.Join(pkiDir, tpp+"-qseal-key.pem"))
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(pkiDir, tpp+"-qseal.pem"))
	if err != nil {
		return nil, err
	}
	return tppclient.NewSigner(keyPEM, certPEM)
}

// testRoots trusts the test PKI's TLS CA.
func testRoots(pkiDir string) *x509.CertPool {
	roots := x509.NewCertPool()
	if ca, err := os.ReadFile(filepath.Join(pkiDir, "tls-ca.pem")); err == nil {
		roots.AppendCertsFromPEM(ca)
	}
	return roots
}

func run(cfg loadConfig) (*Result, error) {
	signer, err := loadSigner(cfg.pkiDir, cfg.tpp)
	if err != nil {
		return nil, err
	}
	if cfg.unsigned {
		signer = nil
	}
	roots := testRoots(cfg.pkiDir)
	if cfg.once {
		return runOnce(cfg, signer, roots)
	}
	reqs, err := buildPool(cfg, cfg.pool, signer)
	if err != nil {
		return nil, err
	}
	p := &signedPool{reqs: reqs}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.dur)
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
				if fresh, err := buildPool(cfg, cfg.pool, signer); err == nil {
					p.replace(fresh)
				}
			}
		}
	}()
	s := measure(ctx, p, cfg.conns, cfg.status, roots)
	s.pool = cfg.pool
	return s.result(cfg)
}

// runOnce sends every signed request at most once. Each pool is signed
// before its clock starts, so the RSA signing does not take CPU from the
// server during the measurement. Without -pool, a one-second warm-up run
// (which also warms the server's caches) measures the rate, then the run
// goes in segments of at most segment, each with a pool sized from the
// rate with half as much again to spare and signed while the clock is
// stopped, until the measured time reaches -d: a pool that runs out early
// only means one more segment, and the Dates stay well inside the
// gateway's 60-second window however long the run. With -pool, one pool
// of that size serves the whole run, which ends early if it runs out.
func runOnce(cfg loadConfig, signer *tppclient.Signer, roots *x509.CertPool) (*Result, error) {
	total := &sample{}
	if cfg.pool > 0 {
		if err := runSegment(cfg, cfg.dur, cfg.pool, signer, roots, total); err != nil {
			return nil, err
		}
		if total.exhausted {
			fmt.Fprintf(os.Stderr, "obgw-load: the pool of %d requests ran out after %.2fs of %v\n", cfg.pool, total.seconds, cfg.dur)
		}
		return total.result(cfg)
	}
	reqs, err := buildPool(cfg, max(1000, 100*cfg.conns), signer)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), warmUp)
	w := measure(ctx, &oncePool{reqs: reqs}, cfg.conns, cfg.status, roots)
	cancel()
	if w.errors > 0 || len(w.lat) == 0 {
		return nil, fmt.Errorf("warm-up: %d of %d requests failed, first: %s", w.errors, len(w.lat), w.firstErr)
	}
	rate := float64(len(w.lat)) / w.seconds
	for left := cfg.dur; left > 10*time.Millisecond; left = cfg.dur - time.Duration(total.seconds*float64(time.Second)) {
		d := min(left, segment)
		n := int(math.Ceil(rate*d.Seconds()*1.5)) + 2*cfg.conns
		sent, took := len(total.lat), total.seconds
		if err := runSegment(cfg, d, n, signer, roots, total); err != nil {
			return nil, err
		}
		if took < total.seconds {
			rate = max(rate, float64(len(total.lat)-sent)/(total.seconds-took))
		}
	}
	total.exhausted = false // the measured time reached -d all the same
	return total.result(cfg)
}

// segment is the longest stretch of a -once run sent from one pool.
const segment = 20 * time.Second

// runSegment signs n requests, sends them once each for at most d and
// adds what it measured to total.
func runSegment(cfg loadConfig, d time.Duration, n int, signer *tppclient.Signer, roots *x509.CertPool, total *sample) error {
	signStart := time.Now()
	reqs, err := buildPool(cfg, n, signer)
	if err != nil {
		return err
	}
	if signed := time.Since(signStart); signed+d > dateWindow {
		return fmt.Errorf("signing %d requests took %v: sent over %v, the last would carry a stale Date; use a smaller -pool or -d", n, signed.Round(time.Millisecond), d)
	}
	p := &oncePool{reqs: reqs}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	total.add(measure(ctx, p, cfg.conns, cfg.status, roots))
	total.pool += n
	total.segments++
	total.exhausted = p.exhausted.Load()
	return nil
}

// statusOK reports whether an answer of status is the one expected: want,
// or any 2xx when want is 0.
func statusOK(status, want int) bool {
	if want == 0 {
		return status >= 200 && status <= 299
	}
	return status == want
}

// sample is what one or more measurements collected.
type sample struct {
	lat       []time.Duration
	errors    int
	seconds   float64
	firstErr  string
	pool      int
	segments  int
	exhausted bool
}

// add merges o into s.
func (s *sample) add(o *sample) {
	s.lat = append(s.lat, o.lat...)
	s.errors += o.errors
	s.seconds += o.seconds
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
}

// result sorts the latencies and computes the numbers of the run.
func (s *sample) result(cfg loadConfig) (*Result, error) {
	if s.firstErr != "" {
		fmt.Fprintln(os.Stderr, "obgw-load: first error:", s.firstErr)
	}
	if len(s.lat) == 0 {
		return nil, fmt.Errorf("no request completed (first error: %s)", s.firstErr)
	}
	all := s.lat
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(q float64) float64 {
		return float64(all[min(len(all)-1, int(q*float64(len(all))))].Microseconds())
	}
	return &Result{URL: cfg.target, Connections: cfg.conns, Seconds: s.seconds, Requests: len(all), Errors: s.errors,
		RPS: float64(len(all)) / s.seconds, P50us: pct(0.50), P99us: pct(0.99), P999us: pct(0.999),
		FirstError: s.firstErr, Pool: s.pool, Segments: s.segments, PoolExhausted: s.exhausted}, nil
}

// measure sends requests from src over conns keep-alive connections until
// ctx ends or src runs out. Every answer other than want (any 2xx when want
// is 0) counts as an error.
func measure(ctx context.Context, src requestSource, conns, want int, roots *x509.CertPool) *sample {
	var (
		wg       sync.WaitGroup
		errs     atomic.Int64
		mu       sync.Mutex
		all      []time.Duration
		started  = time.Now()
		firstErr atomic.Value
	)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
				MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true}
			client := &http.Client{Transport: tr}
			defer tr.CloseIdleConnections()
			lat := make([]time.Duration, 0, 1<<14)
			for ctx.Err() == nil {
				base, ok := src.next()
				if !ok {
					break
				}
				req := base.Clone(ctx)
				if base.GetBody != nil {
					// A clone shares the body reader; each send reads its own.
					req.Body, _ = base.GetBody()
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				failed := !statusOK(resp.StatusCode, want)
				var head []byte
				if failed {
					head, _ = io.ReadAll(io.LimitReader(resp.Body, 300))
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(t0))
				if failed {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, resp.Status+": "+string(head))
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	s := &sample{lat: all, errors: int(errs.Load()), seconds: time.Since(started).Seconds()}
	s.firstErr, _ = firstErr.Load().(string)
	return s
}
