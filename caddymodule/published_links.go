package caddymodule

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/obgw/obgw/testpki/published"
)

// The settings of the TLS links, as the error names them: the option and
// the variables of the shipped policies and the split backend's
// Caddyfile.
const (
	settingLinkCA       = "tls_trust_pool (OBGW_BACKEND_CA, OBGW_UPSTREAM_CA)"
	settingLinkClient   = "tls_client_auth (OBGW_BACKEND_CLIENT_CERT and _KEY, OBGW_UPSTREAM_CLIENT_CERT and _KEY)"
	settingClientAuthCA = "client_auth trust_pool (OBGW_BACKEND_CLIENT_CA)"
	settingBackendTLS   = "the backend's tls certificate and key (OBGW_BACKEND_TLS_CERT, OBGW_BACKEND_TLS_KEY)"
	replaceLinkCA       = "give the CA bundle your bank's backend or upstream certificates chain to"
	replaceLinkClient   = "give the gateway a client certificate and key of your bank's own CA"
	replaceClientAuthCA = "give the CA bundle of your bank's gateway client certificates"
)

// publishedLinks returns the TLS links of the http app that trust the
// test PKI's CAs or present its certificates: the trust pool and the client
// certificate of every reverse_proxy (the split backend, a bank's
// upstream), and the client_auth trust pool of every server that is not
// the qtspCAs pool (the TPPs' site's, which refusePublishedTrust checks
// as qtsp_cas). These settings belong
// to Caddy's own modules; obgw sees them only once they are provisioned,
// as a pool that names its CAs by subject only (published.CASubject) and
// as a loaded key pair, so the check runs when the app starts.
func publishedLinks(app *caddyhttp.App, qtspCAs *x509.CertPool) []trustFinding {
	seen := map[string]bool{}
	var found []trustFinding
	add := func(f trustFinding) {
		if !seen[f.String()] {
			seen[f.String()] = true
			found = append(found, f)
		}
	}
	names := make([]string, 0, len(app.Servers))
	for name := range app.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		srv := app.Servers[name]
		for _, cp := range srv.TLSConnPolicies {
			ca := cp.ClientAuthentication
			if ca == nil {
				continue
			}
			// On a copy: ConfigureTLSConfig also sets fields of the
			// live policy's client authentication.
			probe := *ca
			var cfg tls.Config
			if probe.ConfigureTLSConfig(&cfg) != nil || cfg.ClientCAs == nil || cfg.ClientCAs.Equal(qtspCAs) {
				continue
			}
			if cas := testCAs(cfg.ClientCAs); cas != "" {
				add(trustFinding{setting: settingClientAuthCA, what: fmt.Sprintf("server %s trusts the test PKI's %s for client certificates", name, cas), replace: replaceClientAuthCA})
			}
		}
		walkRoutes(srv.Routes, add)
		if srv.Errors != nil {
			walkRoutes(srv.Errors.Routes, add)
		}
		for _, r := range srv.NamedRoutes {
			// Reached through invoke.
			walkRoutes(caddyhttp.RouteList{*r}, add)
		}
	}
	return found
}

// walkRoutes looks at the reverse proxies of routes, and of the routes
// inside them.
func walkRoutes(routes caddyhttp.RouteList, add func(trustFinding)) {
	for _, r := range routes {
		for _, h := range r.Handlers {
			switch h := h.(type) {
			case *caddyhttp.Subroute:
				walkRoutes(h.Routes, add)
				if h.Errors != nil {
					walkRoutes(h.Errors.Routes, add)
				}
			case *reverseproxy.Handler:
				proxyLinks(h, add)
				for _, rh := range h.HandleResponse {
					walkRoutes(rh.Routes, add)
				}
			}
		}
	}
}

// proxyLinks looks at the TLS of one reverse proxy's transport.
func proxyLinks(h *reverseproxy.Handler, add func(trustFinding)) {
	t, ok := h.Transport.(*reverseproxy.HTTPTransport)
	if !ok || t.Transport == nil || t.Transport.TLSClientConfig == nil {
		return
	}
	to := "a reverse_proxy"
	if len(h.Upstreams) > 0 {
		to = "the reverse_proxy to " + h.Upstreams[0].Dial
	}
	cfg := t.Transport.TLSClientConfig
	if cfg.RootCAs != nil {
		if cas := testCAs(cfg.RootCAs); cas != "" {
			add(trustFinding{setting: settingLinkCA, what: fmt.Sprintf("%s trusts the test PKI's %s", to, cas), replace: replaceLinkCA})
		}
	}
	for _, c := range cfg.Certificates {
		if publishedKeyPair(c) {
			add(trustFinding{setting: settingLinkClient, what: to + " presents the test PKI's gateway certificate", replace: replaceLinkClient})
		}
	}
}

// testCAs names the test PKI's CAs in pool, or is empty.
func testCAs(pool *x509.CertPool) string {
	var names []string
	//lint:ignore SA1019 a file pool's subjects are complete (not a system pool's); a pool lists nothing else
	for _, raw := range pool.Subjects() {
		if !published.CASubject(raw) {
			continue
		}
		var rdn pkix.RDNSequence
		if _, err := asn1.Unmarshal(raw, &rdn); err != nil {
			continue // not a name: then not one of the test PKI's either
		}
		var n pkix.Name
		n.FillFromRDNSequence(&rdn)
		names = append(names, fmt.Sprintf("CA %q", n.CommonName))
	}
	return strings.Join(names, ", ")
}

// publishedKeyPair reports whether a loaded key pair is the test PKI's.
func publishedKeyPair(c tls.Certificate) bool {
	leaf := c.Leaf
	if leaf == nil && len(c.Certificate) > 0 {
		leaf, _ = x509.ParseCertificate(c.Certificate[0])
	}
	if leaf != nil && published.Certificate(leaf) {
		return true
	}
	signer, _ := c.PrivateKey.(crypto.Signer)
	return signer != nil && published.PublicKey(signer.Public())
}

// refusePublishedLinks is the production rule for the TLS links, at
// start: one error naming each link that trusts or presents the test PKI
// (and, in a backend-only process, its own TLS certificate), and what to
// give instead. A sandbox says so once per process.
func (a *App) refusePublishedLinks(production bool) error {
	httpApp, err := a.ctx.AppIfConfigured("http")
	if err != nil {
		return nil
	}
	var qtspCAs *x509.CertPool
	if raw, err := os.ReadFile(a.QTSPCAs); a.QTSPCAs != "" && err == nil {
		qtspCAs = x509.NewCertPool()
		qtspCAs.AppendCertsFromPEM(raw)
	}
	found := publishedLinks(httpApp.(*caddyhttp.App), qtspCAs)
	if a.backendOnly {
		// A backend-only process's own certificate: a gateway's is
		// refused as it provisions.
		for _, f := range publishedTLS(a.ctx) {
			f.setting = settingBackendTLS
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if !production {
		sandboxLinksLogged.Do(func() {
			var settings []string
			for _, f := range found {
				settings = append(settings, f.setting)
			}
			a.slog.Warn("this sandbox's TLS links trust or present the project's published test PKI: fine for trying obgw out; production refuses them",
				"settings", strings.Join(settings, "; "))
		})
		return nil
	}
	return refusal("these TLS links (anyone can read the private keys of this repository's test PKI)", found)
}

// sandboxLinksLogged makes the sandbox's word on its links once per
// process.
var sandboxLinksLogged sync.Once
