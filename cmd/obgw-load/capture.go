package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// answer is one answer as -capture records it: what stock Caddy replays in
// the product comparison of make bench (see stock-caddyfile).
type answer struct {
	Method string      `json:"method"`
	Path   string      `json:"path"`
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// capture sends one request of cfg, built and signed as the load run
// builds its requests, writes the answer to file and prints STATUS,
// CONTENT_TYPE and LENGTH (of the body) as KEY=value lines. An answer
// other than the expected one (-status, or any 2xx) is an error, after
// the file is written.
func capture(cfg loadConfig, file string) error {
	signer, err := loadSigner(cfg.pkiDir, cfg.tpp)
	if err != nil {
		return err
	}
	if cfg.unsigned {
		signer = nil
	}
	req, err := newRequest(cfg, signer)
	if err != nil {
		return err
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: testRoots(cfg.pkiDir), MinVersion: tls.VersionTLS12}, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	a := answer{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode, Header: resp.Header, Body: body}
	b, _ := json.MarshalIndent(a, "", "  ")
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("STATUS=%d\nCONTENT_TYPE=%s\nLENGTH=%d\n", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	if !statusOK(resp.StatusCode, cfg.status) {
		return fmt.Errorf("%s %s: unexpected answer %s: %.300s", req.Method, req.URL.RequestURI(), resp.Status, body)
	}
	return nil
}

// replayedHeader reports whether stock Caddy repeats header name of a
// captured answer: every one but those the server writes itself.
func replayedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Date", "Server", "Connection", "Keep-Alive", "Transfer-Encoding", "Alt-Svc":
		return false
	}
	return true
}

// sameAnswer compares the answer got (stock Caddy's) with want (obgw's):
// the same status, body and headers, but for those the server writes
// itself.
func sameAnswer(want, got answer) error {
	if got.Status != want.Status {
		return fmt.Errorf("status %d, want %d", got.Status, want.Status)
	}
	if !bytes.Equal(got.Body, want.Body) {
		return fmt.Errorf("body of %d bytes differs from the %d bytes wanted: %.200q", len(got.Body), len(want.Body), got.Body)
	}
	for _, h := range []http.Header{want.Header, got.Header} {
		for name := range h {
			if replayedHeader(name) && !slices.Equal(got.Header[name], want.Header[name]) {
				return fmt.Errorf("header %s: %q, want %q", name, got.Header[name], want.Header[name])
			}
		}
	}
	return nil
}

// compareAnswers is "obgw-load same-answer WANT.json GOT.json": an error
// unless sameAnswer.
func compareAnswers(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: obgw-load same-answer WANT.json GOT.json")
	}
	var a [2]answer
	for i, f := range args {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &a[i]); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	if err := sameAnswer(a[0], a[1]); err != nil {
		return fmt.Errorf("%s %s: %s answers otherwise than %s: %w", a[0].Method, a[0].Path, args[1], args[0], err)
	}
	return nil
}

// heredocMarker ends the body of a respond heredoc.
const heredocMarker = "OBGW_BENCH_ANSWER"

// stockCaddyfile prints a Caddyfile for stock Caddy (standard modules
// only, the TLS settings of bench/stock.Caddyfile) that answers each
// captured answer's method and path with that answer: its status, its
// headers (header directive; Date and Server are the server's own) and
// its body, byte for byte (respond with a heredoc).
func stockCaddyfile(args []string) error {
	fs := flag.NewFlagSet("stock-caddyfile", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: obgw-load stock-caddyfile [-o FILE] ANSWER.json...")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "write the Caddyfile here instead of stdout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("no answer files")
	}
	var answers []answer
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var a answer
		if err := json.Unmarshal(b, &a); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		answers = append(answers, a)
	}
	text, err := renderStockCaddyfile(answers)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = os.Stdout.WriteString(text)
		return err
	}
	return os.WriteFile(*out, []byte(text), 0o644)
}

// placeholderLike finds what the Caddyfile or respond could take for a
// placeholder: "{" before a letter, "_" or "$" ({env.X}, {$X},
// {http.request.uri}); JSON has "{" before a quote, a brace or a space.
var placeholderLike = regexp.MustCompile(`\{[A-Za-z_$]`)

// renderStockCaddyfile is the Caddyfile of stockCaddyfile. It refuses what
// the Caddyfile would not pass through unchanged: a body holding the
// heredoc marker, a carriage return, something like a placeholder or an
// escaped brace; a header value with a brace or a backtick.
func renderStockCaddyfile(answers []answer) (string, error) {
	var b strings.Builder
	b.WriteString(`# Generated by obgw-load stock-caddyfile for make bench: stock Caddy
# answering the product paths with obgw's captured answers (status,
# headers, body), standard modules only.
{
	admin off
	persist_config off
	auto_https off
	servers {
		protocols h1 h2
	}
}

https://localhost:{$BENCH_PORT} {
	tls testdata/pki/server.pem testdata/pki/server-key.pem {
		protocols tls1.2 tls1.3
	}
`)
	for i, a := range answers {
		body := string(a.Body)
		if strings.Contains(body, heredocMarker) || strings.ContainsAny(body, "\r") || placeholderLike.MatchString(body) ||
			strings.Contains(body, `\{`) || strings.Contains(body, `\}`) {
			return "", fmt.Errorf("%s %s: the body cannot be written as a Caddyfile heredoc unchanged", a.Method, a.Path)
		}
		if a.Status < 100 || a.Status > 999 || a.Method == "" || !strings.HasPrefix(a.Path, "/") || strings.ContainsAny(a.Path, " \t\n{}`\"") {
			return "", fmt.Errorf("answer %d: method %q, path %q, status %d", i, a.Method, a.Path, a.Status)
		}
		fmt.Fprintf(&b, "\n\t@answer%d {\n\t\tmethod %s\n\t\tpath %s\n\t}\n\thandle @answer%d {\n", i, a.Method, a.Path, i)
		names := make([]string, 0, len(a.Header))
		for name := range a.Header {
			if replayedHeader(name) {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			for j, v := range a.Header[name] {
				if v == "" || strings.ContainsAny(v, "{}`\r\n") || !isToken(name) {
					return "", fmt.Errorf("%s %s: header %s: %q cannot be written into a Caddyfile unchanged", a.Method, a.Path, name, v)
				}
				op := "" // the first value sets the field, later ones add to it
				if j > 0 {
					op = "+"
				}
				fmt.Fprintf(&b, "\t\theader %s%s `%s`\n", op, name, v)
			}
		}
		// The heredoc drops the newline before the closing marker, so a
		// body ending in a newline gets an empty line more.
		fmt.Fprintf(&b, "\t\trespond <<%s\n%s\n%s %s\n\t}\n", heredocMarker, body, heredocMarker, strconv.Itoa(a.Status))
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// isToken reports whether s is a header name of letters, digits and
// hyphens, starting with a letter (so the header directive takes it as a
// name, not as an operation like -Name or +Name).
func isToken(s string) bool {
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
