package caddymodule

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/gateway/refresh"
	"github.com/obgw/obgw/gateway/trustlist"
	"github.com/obgw/obgw/pemfile"
)

// trustSource is one downloaded trust source of a configuration (the EBA
// register, the EU trusted lists): a refresh.Keeper fetching it in the
// background and sharing it through trust_store.
type trustSource struct {
	// name labels it in metrics and readiness: registry_eba,
	// qtsp_trusted_list.
	name   string
	keeper *refresh.Keeper
	// entries counts what the source in use holds; -1 before the first.
	entries func() int
	// failsClosed reports whether it refuses TPPs at t (readiness).
	failsClosed func(t time.Time) bool
	// loaded logs the source in use at start.
	loaded func(a *App)
	// lists are the trusted lists in use (nil for other sources).
	lists func() []trustlist.Summary

	poolKey string // of the trust store in stores
	cancel  context.CancelFunc
	done    chan struct{}
}

// trustStoreOf opens trust_store (through the pool of databases) for a
// source.
func (a *App) trustStoreOf() (trustStore, string, error) {
	url, err := secretValue("trust_store", a.TrustStore, "")
	if err != nil {
		return trustStore{}, "", fmt.Errorf("obgw: %v", err)
	}
	if url == "" {
		url = filepath.Join(caddy.AppDataDir(), "obgw", "trust.db")
	}
	v, _, err := stores.LoadOrNew(url, func() (caddy.Destructor, error) { return &sharedStore{url: url}, nil })
	if err != nil {
		return trustStore{}, "", err
	}
	return trustStore{v.(*sharedStore)}, url, nil
}

// trustSourcesClient fetches trust sources: the system's roots, and
// trust_sources_ca's; five minutes for one fetch.
func (a *App) trustSourcesClient() (*http.Client, error) {
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if a.TrustSourcesCA != "" {
		raw, err := os.ReadFile(a.TrustSourcesCA)
		if err != nil {
			return nil, fmt.Errorf("obgw: trust_sources_ca: %v", err)
		}
		cas, err := pemfile.Certificates(raw)
		if err != nil {
			return nil, fmt.Errorf("obgw: trust_sources_ca %s: %v", a.TrustSourcesCA, err)
		}
		for _, c := range cas {
			roots.AddCert(c)
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t, Timeout: 5 * time.Minute}, nil
}

// start loads the stored source at once (a restart or a reload serves it
// without waiting for the network), then keeps it current.
func (s *trustSource) start(a *App) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	load, stop := context.WithTimeout(ctx, 10*time.Second)
	if s.keeper.Load(load) {
		s.loaded(a)
	} else {
		a.slog.Warn("trust: "+s.name+": not in the trust store yet: TPPs are refused (503) until it is fetched", "source", s.keeper.URL)
	}
	stop()
	trustSources.Store(s, s.name)
	go func() {
		defer close(s.done)
		s.keeper.Run(ctx)
	}()
}

// stop ends the keeper.
func (s *trustSource) stop() {
	trustSources.Delete(s)
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

// cleanup gives the trust store back to the pool.
func (s *trustSource) cleanup() error {
	_, err := stores.Delete(s.poolKey)
	return err
}
