package testidp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Provider is a running OpenID provider.
type Provider struct {
	issuer    string
	server    *http.Server
	handler   http.Handler // op's endpoints and the login page
	authPath  string       // op's authorize endpoint, for LastAuthorize
	tokenPath string       // op's token endpoint, for the ID token override
	key       *signingKey  // op's signing key, for the ID token override

	down        atomic.Bool
	clockOffset atomic.Int64 // time.Duration

	mu            sync.Mutex
	lastAuthorize url.Values
	override      idTokenOverride

	closeOnce sync.Once
	closeErr  error
}

// Start serves the provider on a fresh loopback listener; its issuer is
// http://127.0.0.1:<port>. Close stops it.
func Start(cfg Config) (*Provider, error) {
	return Listen("127.0.0.1:0", cfg)
}

// Listen serves the provider on addr (host:port); its issuer is
// "http://"+addr, with port 0 replaced by the port the system chose. The
// host must be named: it is part of the issuer every token carries.
func Listen(addr string, cfg Config) (*Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("testidp: listen address %q: %w", addr, err)
	}
	if host == "" {
		return nil, fmt.Errorf("testidp: listen address %q names no host, which the issuer needs", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("testidp: %w", err)
	}
	if port == "0" {
		_, port, _ = net.SplitHostPort(ln.Addr().String())
	}
	p, err := newProvider("http://"+net.JoinHostPort(host, port), cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	p.server = &http.Server{Handler: http.HandlerFunc(p.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	go p.server.Serve(ln)
	return p, nil
}

// newProvider builds op with the provider's storage and login page under
// issuer, enabling what obgw's relying party uses: PKCE S256,
// client_secret_post besides client_secret_basic, private_key_jwt (op's
// own verification, for clients with a Key), and plain HTTP.
func newProvider(issuer string, cfg Config) (*Provider, error) {
	key, err := newSigningKey()
	if err != nil {
		return nil, err
	}
	store := newStorage(cfg, issuer+loginPath, key)
	opConfig := &op.Config{
		CodeMethodS256:          true,
		AuthMethodPost:          true,
		AuthMethodPrivateKeyJWT: true,
		SupportedScopes:         []string{oidc.ScopeOpenID, oidc.ScopeProfile},
		SupportedClaims:         append(slices.Clone(op.DefaultSupportedClaims), NationalIDClaim),
	}
	// The key op encrypts codes and access tokens with.
	if _, err := rand.Read(opConfig.CryptoKey[:]); err != nil {
		return nil, fmt.Errorf("testidp: %w", err)
	}
	provider, err := op.NewProvider(opConfig, store, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		return nil, fmt.Errorf("testidp: %w", err)
	}
	mux := http.NewServeMux()
	login := &loginPage{storage: store, callbackURL: op.AuthCallbackURL(provider)}
	mux.Handle(loginPath, op.NewIssuerInterceptor(provider.IssuerFromRequest).Handler(login))
	mux.Handle("/", provider)
	return &Provider{
		issuer:    issuer,
		handler:   mux,
		authPath:  provider.AuthorizationEndpoint().Relative(),
		tokenPath: provider.TokenEndpoint().Relative(),
		key:       key,
	}, nil
}

// Issuer is the provider's issuer URL, without trailing slash; discovery
// is at Issuer()+"/.well-known/openid-configuration".
func (p *Provider) Issuer() string { return p.issuer }

// Close stops serving, dropping open connections.
func (p *Provider) Close() error {
	p.closeOnce.Do(func() {
		if err := p.server.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.closeErr = fmt.Errorf("testidp: %w", err)
		}
	})
	return p.closeErr
}
