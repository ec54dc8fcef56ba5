package tppclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"time"
)

// Client signs and sends requests.
type Client struct {
	// Signer signs every request.
	Signer *Signer
	// HTTP sends the requests; nil means http.DefaultClient. Give it a
	// Transport from NewTLSTransport to trust a test CA or present a QWAC.
	HTTP *http.Client
}

// NewClient returns a Client that signs with s and sends through transport
// (nil means http.DefaultTransport). It does not follow redirects: a
// redirected request would carry a signature made for another target.
func NewClient(s *Signer, transport http.RoundTripper) *Client {
	return &Client{
		Signer: s,
		HTTP: &http.Client{
			Transport: transport,
			Timeout:   30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
	}
}

// NewTLSTransport returns a transport that trusts roots (nil means the
// system pool) and, when clientCert is not nil, presents it for mutual TLS
// (a QWAC). TLS 1.2 is the minimum, as the interface requires.
func NewTLSTransport(roots *x509.CertPool, clientCert *tls.Certificate) *http.Transport {
	cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if clientCert != nil {
		cfg.Certificates = []tls.Certificate{*clientCert}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	return t
}

// Do signs and sends a request; see DoContext.
func (c *Client) Do(method, url string, headers http.Header, body []byte) (*http.Response, error) {
	return c.DoContext(context.Background(), method, url, headers, body)
}

// DoContext sends the request Signer.NewRequest builds and signs. The
// caller closes the response body.
func (c *Client) DoContext(ctx context.Context, method, url string, headers http.Header, body []byte) (*http.Response, error) {
	req, err := c.Signer.NewRequest(ctx, method, url, headers, body)
	if err != nil {
		return nil, err
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	return hc.Do(req)
}

// NewRequest builds a signed client request with headers (PSU-ID,
// TPP-Redirect-URI and so on; a preset X-Request-ID is kept), Content-Type
// (when there is a body) and Accept set to application/json unless given.
// Tests that drive a handler in-process can send it through any
// RoundTripper.
func (s *Signer) NewRequest(ctx context.Context, method, url string, headers http.Header, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, fmt.Errorf("tppclient: %w", err)
	}
	for name, values := range headers {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if len(body) > 0 && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	if err := s.Sign(req, body); err != nil {
		return nil, err
	}
	return req, nil
}
