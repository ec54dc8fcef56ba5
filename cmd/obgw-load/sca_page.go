package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
)

var (
	csrfField    = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	accountField = regexp.MustCompile(`name="account" value="([^"]+)"`)
)

// consentOnSCAPage does what the PSU does in a browser on the sandbox's
// mock SCA page at base+href: identify with the customer number, act as a
// private person, consent to accountID and confirm. It returns the query
// of the success redirect to the TPP (psu-id, tpp-session-id, context),
// which it does not follow.
func consentOnSCAPage(base, href string, roots *x509.CertPool, number, accountID string) (url.Values, error) {
	start, err := url.Parse(base + href)
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{
		Jar:       jar,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
		// Each step redirects back to the page (303, followed); the last
		// one to the TPP, which the bank's page never fetches either.
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if req.URL.Host != start.Host {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	defer c.CloseIdleConnections()

	resp, err := c.Get(start.String())
	page, err := pageOf(resp, err, "open")
	if err != nil {
		return nil, err
	}
	post := func(step string, form url.Values) (*http.Response, error) {
		m := csrfField.FindStringSubmatch(page)
		if m == nil {
			return nil, fmt.Errorf("SCA page before %s: no CSRF token in %.300s", step, page)
		}
		form.Set("csrf", html.UnescapeString(m[1]))
		form.Set("step", step)
		return c.PostForm(start.String(), form)
	}
	resp, err = post("identify", url.Values{"customerNumber": {number}})
	if page, err = pageOf(resp, err, "identify"); err != nil {
		return nil, err
	}
	resp, err = post("context", url.Values{"context": {"PRIVATE"}})
	if page, err = pageOf(resp, err, "context"); err != nil {
		return nil, err
	}
	offered := false
	for _, m := range accountField.FindAllStringSubmatch(page, -1) {
		offered = offered || html.UnescapeString(m[1]) == accountID
	}
	if !offered {
		return nil, fmt.Errorf("SCA page: account %s not offered in %.500s", accountID, page)
	}
	resp, err = post("confirm", url.Values{"account": {accountID}})
	if err != nil {
		return nil, fmt.Errorf("SCA page confirm: %w", err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Host == start.Host {
		return nil, fmt.Errorf("SCA page confirm: want a 303 to the TPP, got %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	if q := loc.Query(); q.Get("code") != "" {
		return nil, fmt.Errorf("SCA failed: %v", q)
	}
	return loc.Query(), nil
}

// pageOf reads the HTML of an SCA page step, which must answer 200.
func pageOf(resp *http.Response, err error, step string) (string, error) {
	if err != nil {
		return "", fmt.Errorf("SCA page %s: %w", step, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("SCA page %s: %s: %.300s", step, resp.Status, b)
	}
	return string(b), nil
}
