// Command obgw-load is obgw's load generator: it pre-signs a pool of
// distinct valid TPP requests (fresh Date, unique X-Request-IDs, the test
// PKI's certificates), replays them over keep-alive HTTPS with N
// connections for a fixed time, re-signing the pool before the Dates go
// stale, and reports req/s, p50, p99, p99.9 and errors (transport errors
// and answers other than the expected status, by default any 2xx) as
// JSON. With -once every request is sent at most once, for routes that
// enforce replay protection. With -upstream it instead serves a 1 KiB JSON
// body, as the small upstream of the reverse_proxy comparison.
//
// -X and -body send another method and a body (signed with its Digest);
// -status names the expected answer when it is not a 2xx (a 401 asking
// for SCA). -capture sends one request and records the answer, which
// "obgw-load stock-caddyfile" turns into a Caddyfile where stock Caddy
// answers the same path with the same status, headers and bytes.
//
// "obgw-load setup-transactions" prepares the sandbox of a running gateway
// for the account-information and payment benchmarks; see setup.go.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Body1K is the 1 KiB JSON answer of the benchmark routes and upstream.
var Body1K = func() []byte {
	b := []byte(`{"accounts":[`)
	for i := 0; len(b) < 1000; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, fmt.Sprintf(`{"resourceId":"enc!!acc%03d","currency":"NOK","name":"Brukskonto"}`, i)...)
	}
	return append(b, "]}"...)
}()

// Result is one run's numbers.
type Result struct {
	Label       string  `json:"label"`
	URL         string  `json:"url"`
	Connections int     `json:"connections"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	P999us      float64 `json:"p999_us"`
	// FirstError is the first transport error or non-2xx answer, with the
	// start of its body.
	FirstError string `json:"first_error,omitempty"`
	// Pool is the number of distinct signed requests the run could send.
	Pool int `json:"pool"`
	// Segments is how many pools a -once run signed and sent, with the
	// clock stopped while signing.
	Segments int `json:"segments,omitempty"`
	// PoolExhausted: with -once and -pool, the run ended before its
	// duration because every request of the pool had been sent.
	PoolExhausted bool `json:"pool_exhausted,omitempty"`
}

func main() {
	if len(os.Args) > 1 {
		sub := map[string]func([]string) error{"setup-transactions": setupTransactions, "stock-caddyfile": stockCaddyfile, "same-answer": compareAnswers, "softhsm-seal": softhsmSeal}[os.Args[1]]
		if sub != nil {
			if err := sub(os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "obgw-load %s: %v\n", os.Args[1], err)
				os.Exit(1)
			}
			return
		}
	}
	headers := headerFlag{"Tpp-Redirect-Uri": {"https://tpp.example.no/cb"}}
	var cfg loadConfig
	upstream := flag.String("upstream", "", "serve the 1 KiB JSON body on this address instead of generating load")
	flag.StringVar(&cfg.target, "url", "https://localhost:8443/bench", "target URL")
	flag.StringVar(&cfg.method, "X", http.MethodGet, "request method")
	bodyFile := flag.String("body", "", "send this file's bytes as the body of every request (signed with its Digest; Content-Type application/json unless -H sets one)")
	flag.IntVar(&cfg.status, "status", 0, "the expected answer status; any other counts as an error (0: any 2xx)")
	captureFile := flag.String("capture", "", "send one request and write its answer (status, headers, body) to this file as JSON, for stock-caddyfile, instead of generating load")
	flag.IntVar(&cfg.conns, "c", 16, "connections")
	flag.DurationVar(&cfg.dur, "d", 10*time.Second, "duration")
	flag.StringVar(&cfg.pkiDir, "pki", "testdata/pki", "test PKI directory")
	flag.StringVar(&cfg.tpp, "tpp", "tpp", "test TPP to sign as")
	flag.IntVar(&cfg.pool, "pool", 512, "pre-signed requests in the pool; with -once, 0 sizes it from a one-second warm-up run")
	flag.BoolVar(&cfg.once, "once", false, "send every request of the pool at most once (replay protection enforced); the run ends early if the pool runs out")
	flag.BoolVar(&cfg.unsigned, "unsigned", false, "send the pool's requests without signing (stock server baseline gets the same headers either way)")
	label := flag.String("label", "", "label of the result")
	flag.Var(headers, "H", "extra header 'Name: value', repeatable; an empty value removes it (default TPP-Redirect-URI: https://tpp.example.no/cb)")
	flag.Parse()
	cfg.headers = http.Header(headers)
	cfg.method = strings.ToUpper(cfg.method)
	if *upstream != "" {
		serveUpstream(*upstream)
		return
	}
	if *bodyFile != "" {
		b, err := os.ReadFile(*bodyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "obgw-load:", err)
			os.Exit(2)
		}
		cfg.body = b
	}
	if *captureFile != "" {
		if err := capture(cfg, *captureFile); err != nil {
			fmt.Fprintln(os.Stderr, "obgw-load -capture:", err)
			os.Exit(1)
		}
		return
	}
	res, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "obgw-load:", err)
		os.Exit(1)
	}
	res.Label = *label
	_ = json.NewEncoder(os.Stdout).Encode(res)
}

func serveUpstream(addr string) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(Body1K)
	})
	fmt.Fprintln(os.Stderr, (&http.Server{Addr: addr, Handler: h}).ListenAndServe())
}
