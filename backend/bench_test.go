package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/ais"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/store/storetest"
	"github.com/obgw/obgw/tppcontext"
)

// benchTransactions is how many booked transactions the paging benchmark
// puts on one account (OBGW_BENCH_TRANSACTIONS overrides, for quick runs).
func benchTransactions() int {
	if n, err := strconv.Atoi(os.Getenv("OBGW_BENCH_TRANSACTIONS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// seedHistory books n transactions on a new account of a new customer with
// a valid consent for the TPP, and returns the account id and PSU-ID.
func seedHistory(b *testing.B, st store.Store, n int, now time.Time) (accountID, psuID string) {
	ctx := context.Background()
	c := &store.Customer{Number: "bench-" + uuid.NewString()[:8], Name: "Bench", Type: store.CustomerPrivate}
	if err := st.CreateCustomer(ctx, c); err != nil {
		b.Fatal(err)
	}
	a := &store.Account{CustomerID: c.ID, Kind: store.KindAccount, Name: "Bench", Currency: "NOK", CashAccountType: "CACC"}
	if err := st.CreateAccount(ctx, a); err != nil {
		b.Fatal(err)
	}
	details := json.RawMessage(`{"remittanceInformationUnstructured":"Faktura","creditorName":"Leverandør AS"}`)
	const batch = 5000
	start := time.Now()
	for done := 0; done < n; done += batch {
		txs := make([]store.Transaction, 0, batch)
		for i := done; i < n && i < done+batch; i++ {
			day := now.AddDate(0, 0, -(i % 720)).Format(time.DateOnly)
			txs = append(txs, store.Transaction{Booked: true, Amount: -int64(100 + i%5000), Currency: "NOK",
				BookingDate: day, ValueDate: day, Details: details})
		}
		if err := st.AddTransactions(ctx, a.ID, txs); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d transactions in %s", n, time.Since(start).Round(time.Millisecond))
	if err := st.CreateConsent(ctx, &store.Consent{TPP: "PSDNO-FSA-987654321", CustomerID: c.ID, Context: "PRIVATE",
		AccountIDs: []string{a.ID}, Status: store.ConsentValid, ValidUntil: now.Add(ais.ConsentLifetime), LastSCA: now}); err != nil {
		b.Fatal(err)
	}
	psu, err := st.PSUID(ctx, "PSDNO-FSA-987654321", c.ID)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CompleteSession(ctx, &store.Session{TPP: "PSDNO-FSA-987654321", TPPSessionID: "bench", CustomerID: c.ID,
		Context: "PRIVATE", ValidUntil: now.Add(sca.SessionLifetime)}); err != nil {
		b.Fatal(err)
	}
	return a.ID, psu
}

// historyServer is a backend on a new store of kind (sqlite, postgres)
// holding an account with n booked transactions and a consent, and a
// maker of requests as the gateway forwards them (a fresh context token,
// PSU present, TPP-Session-ID bench).
func historyServer(b *testing.B, kind string, n int, now time.Time) (srv *Server, request func(path, psuID string) *http.Request, accountID, psuID string) {
	url := filepath.Join(b.TempDir(), "bench.db")
	if kind == "postgres" {
		url, _ = storetest.Schema(b, "t_bench")
	}
	st, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	accountID, psuID = seedHistory(b, st, n, now)
	if kind == "postgres" {
		storetest.Analyze(b, url)
	}
	request, ver := gatewayRequests("bench")
	return New(Config{Store: st, Tokens: ver}), request, accountID, psuID
}

// gatewayRequests returns a maker of GET requests as the gateway hands
// them to the backend (an AISP's, with the PSU present, TPP-Session-ID
// session, a context token of their own), and the verifier of those
// tokens for the backend's Config.
func gatewayRequests(session string) (request func(path, psuID string) *http.Request, ver *tppcontext.Verifier) {
	key := make([]byte, 32)
	iss, _ := tppcontext.NewIssuer(key)
	ver, _ = tppcontext.NewVerifier(key)
	return func(path, psu string) *http.Request {
		rid := uuid.NewString()
		req := httptest.NewRequest("GET", path, nil)
		tok, _ := iss.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, RequestID: rid,
			PSUID: psu, PSUPresent: true, Method: "GET", Path: req.URL.Path}, time.Now())
		req.Header.Set("X-Request-ID", rid)
		req.Header.Set("TPP-Session-ID", session)
		req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
		req.Header.Set(tppcontext.Header, tok)
		return req
	}, ver
}

// BenchmarkTransactionsPage is a page of 200 booked transactions of an
// account holding a million, through the backend handler, on SQLite and on
// PostgreSQL. It reports p50/p99 per request and the heap after the run
// (memory must stay flat across pages).
func BenchmarkTransactionsPage(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			now := time.Now().UTC()
			srv, request, accountID, psuID := historyServer(b, kind, benchTransactions(), now)
			pages := []string{"", "&offset=200", "&offset=4000", "&dateFrom=" + now.AddDate(0, -2, 0).Format(time.DateOnly)}
			var lat []time.Duration
			byPage := make([][]time.Duration, len(pages))
			// pageRequest is a verified request for the page of query pg.
			pageRequest := func(pg string) *http.Request {
				return request("/v1/accounts/"+accountID+"/transactions?bookingStatus=booked"+pg, psuID)
			}
			// Warm up: a running server has its statements prepared and
			// its pages cached; the first request of each kind does not count.
			for _, pg := range pages {
				srv.ServeHTTP(httptest.NewRecorder(), pageRequest(pg))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := pageRequest(pages[i%len(pages)])
				rec := httptest.NewRecorder()
				t0 := time.Now()
				srv.ServeHTTP(rec, req)
				d := time.Since(t0)
				lat = append(lat, d)
				byPage[i%len(pages)] = append(byPage[i%len(pages)], d)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body.String())
				}
				i++
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			for k, name := range []string{"first", "offset200", "offset4000", "dateFrom"} {
				l := byPage[k]
				sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
				if len(l) > 0 {
					b.ReportMetric(float64(l[len(l)*99/100].Microseconds())/1000, "p99-"+name+"-ms")
				}
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		})
	}
}

// benchHarness drives the handler directly (no TLS) for benchmarks.
type benchHarness struct {
	srv    *Server
	issuer *tppcontext.Issuer
}

func newBenchHarness(b *testing.B, kind string) *benchHarness {
	ctx := context.Background()
	url := filepath.Join(b.TempDir(), "bench.db")
	if kind == "postgres" {
		url, _ = storetest.Schema(b, "t_bench")
	}
	st, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := sandbox.SeedFor(ctx, st, testTPP, time.Now()); err != nil {
		b.Fatal(err)
	}
	key := make([]byte, 32)
	iss, _ := tppcontext.NewIssuer(key)
	ver, _ := tppcontext.NewVerifier(key)
	return &benchHarness{srv: New(Config{Store: st, Tokens: ver, Sandbox: true}), issuer: iss}
}

func (h *benchHarness) post(path, body string) (int, string) {
	rid := uuid.NewString()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	tok, _ := h.issuer.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_PI"}, RequestID: rid, PSUPresent: true, Method: "POST", Path: req.URL.Path}, time.Now())
	req.Header.Set("X-Request-ID", rid)
	req.Header.Set("TPP-Session-ID", "bench")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	req.Header.Set(tppcontext.Header, tok)
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// BenchmarkProductPath is the backend's part of the product paths of
// make bench, through the handler without TLS: a consented read of a page
// of 15 transactions (about 4 KB) with the PSU present, and a request
// without consent (401 with a sealed scaRedirect), on SQLite and
// PostgreSQL. Each op issues its context token, as the gateway would.
// It reports the statements each request runs (statements/op) and how many
// of them the database parses (parsed/op: 0 once every statement of the
// path is prepared; store.Statements says what is counted).
func BenchmarkProductPath(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			srv, request, accountID, psuID := historyServer(b, kind, 1000, time.Now().UTC())
			for _, p := range []struct {
				name, path, psu string
				status          int
			}{
				{"consented-read", "/v1/accounts/" + accountID + "/transactions?bookingStatus=booked&limit=15", psuID, http.StatusOK},
				{"unconsented", "/v1/accounts", uuid.NewString(), http.StatusUnauthorized},
			} {
				b.Run(p.name, func(b *testing.B) {
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, request(p.path, p.psu))
					if rec.Code != p.status {
						b.Fatalf("%d %s", rec.Code, rec.Body.String())
					}
					b.ReportMetric(float64(rec.Body.Len()), "body-B")
					b.ReportAllocs()
					st := srv.cfg.Store
					before := store.Statements(st)
					b.ResetTimer()
					for b.Loop() {
						rec := httptest.NewRecorder()
						srv.ServeHTTP(rec, request(p.path, p.psu))
						if rec.Code != p.status {
							b.Fatalf("%d %s", rec.Code, rec.Body.String())
						}
					}
					after := store.Statements(st)
					b.ReportMetric(float64(after.Run-before.Run)/float64(b.N), "statements/op")
					b.ReportMetric(float64(after.Parsed-before.Parsed)/float64(b.N), "parsed/op")
				})
			}
		})
	}
}
