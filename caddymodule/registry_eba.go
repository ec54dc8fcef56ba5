package caddymodule

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/gateway/refresh"
	"github.com/obgw/obgw/gateway/registry"
)

// Defaults of the EBA register's settings.
const (
	DefaultRegistryCountry = "NO"
	DefaultRegistryRefresh = 24 * time.Hour
	DefaultRegistryMaxAge  = 7 * 24 * time.Hour
)

// provisionEBA sets up registry_eba (registry.EBASource kept by a
// refresh.Keeper): no network and no database yet. It returns the source
// the verifier asks.
func (a *App) provisionEBA() (*registry.EBASource, error) {
	if a.RegistryCountry == "" {
		a.RegistryCountry = DefaultRegistryCountry
	}
	if len(a.RegistryCountry) != 2 || strings.ToUpper(a.RegistryCountry) != a.RegistryCountry {
		return nil, fmt.Errorf("obgw: registry_country %q is not an ISO 3166 country code such as NO", a.RegistryCountry)
	}
	if a.RegistryRefresh <= 0 {
		a.RegistryRefresh = caddy.Duration(DefaultRegistryRefresh)
	}
	if a.RegistryMaxAge <= 0 {
		a.RegistryMaxAge = caddy.Duration(DefaultRegistryMaxAge)
	}
	if a.RegistryMaxAge < a.RegistryRefresh {
		return nil, fmt.Errorf("obgw: registry_max_age %v is shorter than registry_refresh %v: the register would fail closed between two fetches",
			time.Duration(a.RegistryMaxAge), time.Duration(a.RegistryRefresh))
	}
	if strings.HasPrefix(a.RegistryEBA, "http://") && a.production() {
		return nil, fmt.Errorf("obgw: registry_eba %s: production fetches the register over https (or reads a file): over http anyone on the way could change it", a.RegistryEBA)
	}
	client, err := a.trustSourcesClient()
	if err != nil {
		return nil, err
	}
	st, poolKey, err := a.trustStoreOf()
	if err != nil {
		return nil, err
	}
	src := &registry.EBASource{Country: a.RegistryCountry, MaxAge: time.Duration(a.RegistryMaxAge), Now: now}
	k := &refresh.Keeper{
		Name:   "registry eba " + a.RegistryCountry,
		URL:    a.RegistryEBA,
		Every:  time.Duration(a.RegistryRefresh),
		Accept: src.Accept,
		Use:    src.Use,
		Store:  st,
		Holder: instance,
		Client: client,
		Now:    now,
		Log:    a.slog,
		Failed: func() { a.metrics.trustFetchFailed("registry_eba") },
	}
	src.Fetched = k.Fetched
	a.trustSources = append(a.trustSources, &trustSource{
		name: "registry_eba", keeper: k, poolKey: poolKey,
		entries: func() int {
			if r := src.Register(); r != nil {
				return r.Len()
			}
			return -1
		},
		failsClosed: func(t time.Time) bool { return src.Register() == nil || t.Sub(k.Fetched()) > src.MaxAge },
		loaded: func(a *App) {
			a.slog.Info("trust: register", "source", "eba "+k.URL, "country", src.Country, "entries", src.Register().Len(),
				"fetched", k.Fetched().UTC().Format(time.RFC3339))
		},
	})
	return src, nil
}
