package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// authoriseInBrowser walks a payment's SCA page (identify, context,
// confirm) over HTTP with a cookie jar and returns the TPP redirect query.
func authoriseInBrowser(t *testing.T, g *gateway, href, number string) url.Values {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := client(nil)
	c.Jar = jar
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != g.addr {
			return http.ErrUseLastResponse
		}
		return nil
	}
	base := "https://" + g.addr
	resp, err := c.Do(browserRequest(t, http.MethodGet, base+href, nil))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var last *http.Response
	for _, form := range []url.Values{{"step": {"identify"}, "customerNumber": {number}}, {"step": {"context"}, "context": {"PRIVATE"}}, {"step": {"confirm"}}} {
		m := csrfRe.FindSubmatch(page)
		if m == nil {
			t.Fatalf("no form: %s", page)
		}
		form.Set("csrf", string(m[1]))
		last, err = c.Do(browserRequest(t, http.MethodPost, base+href, form))
		if err != nil {
			t.Fatal(err)
		}
		page, _ = io.ReadAll(last.Body)
		last.Body.Close()
	}
	loc, _ := url.Parse(last.Header.Get("Location"))
	return loc.Query()
}

// TestPaymentThroughGateway: a signed payment initiation, SCA, a batch run
// and the settled status, through the shipped Caddyfile.
func TestPaymentThroughGateway(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031010010") +
		`"},"creditorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031020016") + `"},"creditorName":"Ola Nordmann","remittanceInformationUnstructured":"Husleie"}`)
	req := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", body)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, "tpp").Sign(req, body); err != nil {
		t.Fatal(err)
	}
	got := send(t, s.c, req)
	var created struct {
		PaymentID         string                           `json:"paymentId"`
		TransactionStatus string                           `json:"transactionStatus"`
		Links             map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil || created.TransactionStatus != "RCVD" {
		t.Fatalf("create: %d %s", got.status, got.body)
	}
	// A retry with the same X-Request-ID, signed anew (fresh Date), reaches
	// the backend and gets the same payment; the exact bytes sent again are
	// a replay.
	dup := req.Clone(req.Context())
	dup.Body, _ = req.GetBody()
	again := send(t, s.c, dup)
	if again.status != 400 || again.err.code() != "FORMAT_ERROR" || !containsFold(again.err.TPPMessages[0].Text, "replay") {
		t.Fatalf("exact replay: %d %s", again.status, again.body)
	}
	time.Sleep(1100 * time.Millisecond) // a new second, so a new Date
	retry := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", body)
	retry.Header.Set("TPP-Session-ID", s.sid)
	retry.Header.Set("PSU-IP-Address", "192.0.2.10")
	retry.Header.Set("X-Request-ID", req.Header.Get("X-Request-ID"))
	if err := signer(t, "tpp").Sign(retry, body); err != nil {
		t.Fatal(err)
	}
	if got := send(t, s.c, retry); got.status != 201 || !strings.Contains(string(got.body), created.PaymentID) {
		t.Fatalf("retry: %d %s", got.status, got.body)
	}
	// An AISP cannot initiate payments.
	aisp := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", body)
	if err := signer(t, "aisp").Sign(aisp, body); err != nil {
		t.Fatal(err)
	}
	if got := send(t, s.c, aisp); got.status != 401 || got.err.code() != "ROLE_INVALID" {
		t.Fatalf("AISP: %d %s", got.status, got.body)
	}
	q := authoriseInBrowser(t, g, created.Links["scaRedirect"].Href, sandbox.KariNumber)
	if q.Get("psu-id") == "" {
		t.Fatalf("redirect %v", q)
	}
	status := "/v1/payments/domestic-norway-credit-transfers/" + created.PaymentID + "/status"
	if got := s.call("GET", status, true); !strings.Contains(string(got.body), `"ACTC"`) {
		t.Fatalf("after SCA: %d %s", got.status, got.body)
	}
	// Cancelling the authorised payment needs the PSU: 202 with a
	// cancellation SCA flow, whose routes pass the PIS policy.
	self := "/v1/payments/domestic-norway-credit-transfers/" + created.PaymentID
	var cancel struct {
		TransactionStatus string                           `json:"transactionStatus"`
		Links             map[string]struct{ Href string } `json:"_links"`
	}
	if got := s.call("DELETE", self, true); got.status != 202 || json.Unmarshal(got.body, &cancel) != nil ||
		cancel.TransactionStatus != "ACTC" || cancel.Links["startAuthorisation"].Href != self+"/cancellation-authorisations" || cancel.Links["scaRedirect"].Href == "" {
		t.Fatalf("DELETE authorised: %d %s", got.status, got.body)
	}
	if got := s.call("POST", self+"/cancellation-authorisations", true); got.status != 201 || !strings.Contains(string(got.body), `"scaRedirect"`) {
		t.Fatalf("start cancellation authorisation: %d %s", got.status, got.body)
	}
	if got := s.call("GET", cancel.Links["scaStatus"].Href, true); got.status != 200 || !strings.Contains(string(got.body), `"received"`) {
		t.Fatalf("cancellation scaStatus: %d %s", got.status, got.body)
	}
	batch := newRequest(t, g, http.MethodPost, "/v1/sandbox/payment-batch-runs", nil)
	batch.Header.Del("TPP-Redirect-URI")
	if err := signer(t, "tpp").Sign(batch, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, s.c, batch); got.status != 200 {
		t.Fatalf("batch run: %d %s", got.status, got.body)
	}
	if got := s.call("GET", status, true); !strings.Contains(string(got.body), `"ACSC"`) || !strings.Contains(string(got.body), `"fundsAvailable":true`) {
		t.Fatalf("after the batch run: %d %s", got.status, got.body)
	}
}

// TestBasketAllOrNothingThroughGateway (issue 34, 4): a signing basket of
// an instant payment from Kari's account and a payment from Ola's, which
// Kari authorises: the failure redirect, the basket RJCT, and the instant
// payment RJCT too (before, it was executed, ACSC, while the basket
// failed: a TPP that retried paid twice).
func TestBasketAllOrNothingThroughGateway(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	kari, ola := bankaccount.IBAN("NO", "12031010010"), bankaccount.IBAN("NO", "12031020016")
	const instant = "/v1/payments/instant-norwegian-credit-transfers-straks"
	post := func(path string, body []byte, header map[string]string) response {
		t.Helper()
		req := newRequest(t, g, http.MethodPost, path, body)
		req.Header.Set("TPP-Session-ID", s.sid)
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if err := signer(t, "tpp").Sign(req, body); err != nil {
			t.Fatal(err)
		}
		return send(t, s.c, req)
	}
	var ids []string
	for _, from := range [][2]string{{kari, ola}, {ola, kari}} {
		got := post(instant, []byte(`{"instructedAmount":{"currency":"NOK","amount":"5.00"},"debtorAccount":{"iban":"`+from[0]+
			`"},"creditorAccount":{"iban":"`+from[1]+`"},"creditorName":"Mottaker AS"}`), nil)
		var p struct {
			PaymentID string `json:"paymentId"`
		}
		if got.status != 201 || json.Unmarshal(got.body, &p) != nil {
			t.Fatalf("payment: %d %s", got.status, got.body)
		}
		ids = append(ids, p.PaymentID)
	}
	got := post("/v1/signing-baskets", []byte(`{"paymentIds":["`+strings.Join(ids, `","`)+`"]}`), map[string]string{"PSU-ID": uuid.NewString()})
	var basket struct {
		BasketID string `json:"basketId"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &basket) != nil {
		t.Fatalf("basket: %d %s", got.status, got.body)
	}
	self := "/v1/signing-baskets/" + basket.BasketID
	got = post(self+"/authorisations", nil, nil)
	var auth struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &auth) != nil {
		t.Fatalf("authorisation: %d %s", got.status, got.body)
	}
	if q := authoriseInBrowser(t, g, auth.Links["scaRedirect"].Href, sandbox.KariNumber); q.Get("code") != "RESOURCE_UNKNOWN" {
		t.Fatalf("the redirect of a basket Kari cannot wholly pay: %v", q)
	}
	if got := s.call("GET", self+"/status", true); !strings.Contains(string(got.body), `"RJCT"`) {
		t.Fatalf("the basket: %d %s", got.status, got.body)
	}
	for _, id := range ids {
		if got := s.call("GET", instant+"/"+id+"/status", true); !strings.Contains(string(got.body), `"RJCT"`) {
			t.Fatalf("payment %s of the failed basket: %d %s, want RJCT (nothing executed)", id, got.status, got.body)
		}
	}
}

// TestConcurrentPaymentsShareCommits (issue 31, 4): 64 payments created at
// once over 16 connections through the shipped Caddyfile are each
// answered 201 and each stored, read back from the database file by
// another store; /metrics counts every one as a shared write, in at
// most as many commits (fewer when they met: the test logs how many).
func TestConcurrentPaymentsShareCommits(t *testing.T) {
	dataDir := t.TempDir()
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+dataDir)
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"2.00"},"debtorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031010010") +
		`"},"creditorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031020016") + `"},"creditorName":"Ola Nordmann"}`)
	const n, conns = 64, 16
	ids := make([]string, n)
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			hc := client(nil)
			for i := c; i < n; i += conns {
				rid := uuid.NewString()
				req := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", body)
				req.Header.Set("X-Request-ID", rid)
				req.Header.Set("TPP-Session-ID", "shared")
				req.Header.Set("PSU-IP-Address", "192.0.2.10")
				if err := signer(t, "tpp").Sign(req, body); err != nil {
					t.Error(err)
					return
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 201 {
					t.Errorf("payment %d: %d %s", i, resp.StatusCode, b)
					return
				}
				ids[i] = rid
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	m := scrape(t, "http://"+g.health+"/metrics")
	writes, commits := m["obgw_store_shared_writes_total"], m["obgw_store_shared_commits_total"]
	if writes != n || commits < 1 || commits > writes {
		t.Fatalf("/metrics: %v shared writes in %v commits, want %d writes in 1 to %d commits", writes, commits, n, n)
	}
	t.Logf("%d payments in %v commits", n, commits)
	// Another process's view of the file, the gateway still running.
	st, err := store.Open(context.Background(), filepath.Join(dataDir, "obgw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, rid := range ids {
		if _, err := st.GetPaymentByRequest(context.Background(), "PSDNO-FSA-987654321", rid); err != nil {
			t.Fatalf("payment %d answered 201, not in the database: %v", i, err)
		}
	}
}
