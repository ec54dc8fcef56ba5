package eidas

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// fetchBounded sends req and returns the body of a 200 answer, failing on
// any other status or a body of more than limit bytes, so that a hostile
// or broken server cannot make the gateway buffer without bound.
func fetchBounded(client *http.Client, req *http.Request, limit int64) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so that the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("HTTP status %d", resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("response of %d bytes exceeds the limit of %d", resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("response exceeds the limit of %d bytes", limit)
	}
	return body, nil
}

// isHTTPURL reports whether u is a plain http URL. Certificates' OCSP and
// CRL URLs are followed only over http: RFC 5280 and RFC 6960 define them
// so, the answers are signed anyway, and https would make revocation
// checking depend on another certificate's revocation.
func isHTTPURL(u string) bool {
	return len(u) > len("http://") && strings.EqualFold(u[:len("http://")], "http://")
}

// httpURLs returns the plain http URLs of urls.
func httpURLs(urls []string) []string {
	var out []string
	for _, u := range urls {
		if isHTTPURL(u) {
			out = append(out, u)
		}
	}
	return out
}

// hasHTTPURL reports whether any of urls is a plain http URL.
func hasHTTPURL(urls []string) bool {
	for _, u := range urls {
		if isHTTPURL(u) {
			return true
		}
	}
	return false
}
