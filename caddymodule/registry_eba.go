package caddymodule

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/gateway/refresh"
	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/pemfile"
)

// Defaults of the EBA register's settings.
const (
	DefaultRegistryCountry = "NO"
	DefaultRegistryRefresh = 24 * time.Hour
	DefaultRegistryMaxAge  = 7 * 24 * time.Hour
)

// ebaRegister is the EBA register of one configuration: the source the
// verifier asks, and the keeper that fetches it (registry.EBASource,
// refresh.Keeper).
type ebaRegister struct {
	source  *registry.EBASource
	keeper  *refresh.Keeper
	poolKey string // of the trust store in stores
	cancel  context.CancelFunc
	done    chan struct{}
}

// provisionEBA sets up registry_eba: no network and no database yet.
func (a *App) provisionEBA() error {
	if a.RegistryCountry == "" {
		a.RegistryCountry = DefaultRegistryCountry
	}
	if len(a.RegistryCountry) != 2 || strings.ToUpper(a.RegistryCountry) != a.RegistryCountry {
		return fmt.Errorf("obgw: registry_country %q is not an ISO 3166 country code such as NO", a.RegistryCountry)
	}
	if a.RegistryRefresh <= 0 {
		a.RegistryRefresh = caddy.Duration(DefaultRegistryRefresh)
	}
	if a.RegistryMaxAge <= 0 {
		a.RegistryMaxAge = caddy.Duration(DefaultRegistryMaxAge)
	}
	if a.RegistryMaxAge < a.RegistryRefresh {
		return fmt.Errorf("obgw: registry_max_age %v is shorter than registry_refresh %v: the register would fail closed between two fetches",
			time.Duration(a.RegistryMaxAge), time.Duration(a.RegistryRefresh))
	}
	if strings.HasPrefix(a.RegistryEBA, "http://") && a.production() {
		return fmt.Errorf("obgw: registry_eba %s: production fetches the register over https (or reads a file): over http anyone on the way could change it", a.RegistryEBA)
	}
	client, err := a.trustSourcesClient()
	if err != nil {
		return err
	}
	url, err := secretValue("trust_store", a.TrustStore, "")
	if err != nil {
		return fmt.Errorf("obgw: %v", err)
	}
	if url == "" {
		url = filepath.Join(caddy.AppDataDir(), "obgw", "trust.db")
	}
	v, _, err := stores.LoadOrNew(url, func() (caddy.Destructor, error) { return &sharedStore{url: url}, nil })
	if err != nil {
		return err
	}
	e := &ebaRegister{poolKey: url}
	e.source = &registry.EBASource{Country: a.RegistryCountry, MaxAge: time.Duration(a.RegistryMaxAge), Now: now}
	e.keeper = &refresh.Keeper{
		Name:   "registry eba " + a.RegistryCountry,
		URL:    a.RegistryEBA,
		Every:  time.Duration(a.RegistryRefresh),
		Accept: e.source.Accept,
		Use:    e.source.Use,
		Store:  trustStore{v.(*sharedStore)},
		Holder: instance,
		Client: client,
		Now:    now,
		Log:    a.slog,
		Failed: func() { a.metrics.trustFetchFailed("registry_eba") },
	}
	e.source.Fetched = e.keeper.Fetched
	a.eba = e
	return nil
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

// start loads the stored register at once (a restart or a reload serves
// it without waiting for the network), then keeps it current.
func (e *ebaRegister) start(a *App) {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel, e.done = cancel, make(chan struct{})
	load, stop := context.WithTimeout(ctx, 10*time.Second)
	if e.keeper.Load(load) {
		a.slog.Info("trust: register", "source", "eba "+e.keeper.URL, "country", e.source.Country, "entries", e.source.Register().Len(),
			"fetched", e.keeper.Fetched().UTC().Format(time.RFC3339))
	} else {
		a.slog.Warn("trust: register: the EBA register is not in the trust store yet: TPPs are refused (503) until it is fetched", "source", "eba "+e.keeper.URL)
	}
	stop()
	trustSources.Store(e, "registry_eba")
	go func() {
		defer close(e.done)
		e.keeper.Run(ctx)
	}()
}

// stop ends the keeper.
func (e *ebaRegister) stop() {
	trustSources.Delete(e)
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
}

// cleanup gives the trust store back to the pool.
func (e *ebaRegister) cleanup() error {
	_, err := stores.Delete(e.poolKey)
	return err
}

// problem names the register when it fails closed: none fetched yet, or
// older than registry_max_age (readiness, trust_report.go).
func (e *ebaRegister) problem(t time.Time) bool {
	f := e.keeper.Fetched()
	return e.source.Register() == nil || t.Sub(f) > e.source.MaxAge
}
