package backend

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// Sandbox accounts (fixed data set).
var (
	kariIBAN = bankaccount.IBAN("NO", "12031010010")
	olaIBAN  = bankaccount.IBAN("NO", "12031020016")
	tomIBAN  = bankaccount.IBAN("NO", tomBBAN)
)

func paymentBody(amount, debtor, creditor, extra string) string {
	return `{"instructedAmount":{"currency":"NOK","amount":"` + amount + `"},"debtorAccount":{"iban":"` + debtor +
		`"},"creditorAccount":{"iban":"` + creditor + `"},"creditorName":"Mottaker AS"` + extra + `}`
}

// authorise walks the SCA page of href as customer number and returns the
// TPP redirect's query.
func (h *harness) authorise(href, number string) url.Values {
	h.t.Helper()
	p := h.browser()
	page := p.open(href)
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {number}}))
	page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
	if !strings.Contains(page, `id="confirm"`) {
		h.t.Fatalf("no confirm step: %s", page)
	}
	resp := p.submit(href, page, url.Values{"step": {"confirm"}})
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	return loc.Query()
}

func (h *harness) balance(iban string) string {
	h.t.Helper()
	a, err := h.st.GetAccountByNumber(context.Background(), testTPP, iban, "")
	if err != nil {
		h.t.Fatal(err)
	}
	bs, _ := h.st.ListBalances(context.Background(), a.ID)
	for _, b := range bs {
		if b.Type == "closingBooked" {
			return fmt.Sprint(b.Amount)
		}
	}
	return ""
}

func TestPaymentJourney(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		kariBefore, olaBefore := h.balance(kariIBAN), h.balance(olaIBAN)
		call := tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "p1", requestID: "5d1c2b0e-0000-4000-8000-000000000001",
			body: paymentBody("150.00", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"Middag"`)}
		status, b, _ := h.call(call)
		id, _ := b["paymentId"].(string)
		if status != 201 || b["transactionStatus"] != "RCVD" || scaLink(b) == "" || id == "" {
			t.Fatalf("create: %d %v", status, b)
		}
		// The same X-Request-ID never creates a second payment.
		status, b2, _ := h.call(call)
		if status != 201 || b2["paymentId"] != id {
			t.Fatalf("retry: %d %v", status, b2)
		}
		// A domestic payment's status is unavailable before approval.
		self := "/v1/payments/domestic-norway-credit-transfers/" + id
		if status, _, _ := h.call(tppCall{method: "GET", path: self + "/status"}); status != 404 {
			t.Fatalf("status before approval: %d", status)
		}
		q := h.authorise(scaLink(b), sandbox.KariNumber)
		if q.Get("psu-id") == "" {
			t.Fatalf("redirect %v", q)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "ACTC" {
			t.Fatalf("after SCA: %v", b)
		}
		// Another TPP's batch run executes its own payments only (issue 16).
		if status, b, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "POST", path: "/v1/sandbox/payment-batch-runs"}); status != 200 || b["settled"].(float64) != 0 {
			t.Fatalf("another TPP's batch run: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
		if status != 200 || b["settled"].(float64) < 1 {
			t.Fatalf("batch run: %d %v", status, b)
		}
		_, b, _ = h.call(tppCall{method: "GET", path: self})
		if b["transactionStatus"] != "ACSC" || b["fundsAvailable"] != true || b["creditorName"] != "Mottaker AS" {
			t.Fatalf("after batch run: %v", b)
		}
		if h.balance(kariIBAN) == kariBefore || h.balance(olaIBAN) == olaBefore {
			t.Fatal("balances did not move")
		}
		var kb, ob int64
		fmt.Sscan(kariBefore, &kb)
		fmt.Sscan(olaBefore, &ob)
		if h.balance(kariIBAN) != fmt.Sprint(kb-15000) || h.balance(olaIBAN) != fmt.Sprint(ob+15000) {
			t.Fatalf("Kari %s→%s, Ola %s→%s", kariBefore, h.balance(kariIBAN), olaBefore, h.balance(olaIBAN))
		}
		// A second batch run does not execute it again.
		h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
		if h.balance(kariIBAN) != fmt.Sprint(kb-15000) {
			t.Fatal("payment executed twice")
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: self}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("cancel settled: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/bitcoin", body: "{}"}); status != 404 || errCode(b) != "PRODUCT_UNKNOWN" {
			t.Fatalf("unknown product: %d %v", status, b)
		}
	})
}

func TestPaymentFundsAndOwnership(t *testing.T) {
	h := newHarness(t, "sqlite")
	h.noFundsCustomer()
	// Tom has no funds: the batch run leaves the payment ACCP, fundsAvailable false.
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/sepa-credit-transfers", sid: "p1",
		body: strings.Replace(paymentBody("100.00", tomIBAN, olaIBAN, ""), `"NOK"`, `"EUR"`, 1)})
	if errCode(b) != "" {
		// SEPA needs EUR; the sandbox accounts are NOK: use a domestic payment.
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "p1", body: paymentBody("100.00", tomIBAN, olaIBAN, "")})
	}
	id := b["paymentId"].(string)
	h.authorise(scaLink(b), tomNumber)
	h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
	p, _ := h.st.GetPayment(context.Background(), id)
	if p.Status != "ACCP" || p.FundsAvailable != "false" {
		t.Fatalf("no funds: %+v", p)
	}
	// Instant between own accounts settles at SCA.
	_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "p2", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
	id = b["paymentId"].(string)
	h.authorise(scaLink(b), sandbox.KariNumber)
	if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/payments/" + pis.InstantProduct + "/" + id + "/status"}); b["transactionStatus"] != "ACSC" {
		t.Fatalf("instant: %v", b)
	}
	// Kari cannot pay from Ola's account: failure redirect, payment rejected.
	_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "p3", body: paymentBody("10.00", olaIBAN, kariIBAN, "")})
	id = b["paymentId"].(string)
	q := h.authorise(scaLink(b), sandbox.KariNumber)
	if q.Get("code") == "" || q.Get("status") == "" {
		t.Fatalf("foreign debtor redirect: %v", q)
	}
	if p, _ := h.st.GetPayment(context.Background(), id); p.Status != "RJCT" {
		t.Fatalf("foreign debtor: %+v", p)
	}
	// Cancel before SCA.
	_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "p4", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
	id = b["paymentId"].(string)
	if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/payments/" + pis.InstantProduct + "/" + id}); status != 204 {
		t.Fatalf("cancel: %d", status)
	}
	if p, _ := h.st.GetPayment(context.Background(), id); p.Status != "CANC" {
		t.Fatalf("cancelled: %+v", p)
	}
	// Fee information.
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct + "/fee-information", body: paymentBody("10.00", kariIBAN, olaIBAN, "")}); status != 200 || b["transactionFees"] == nil {
		t.Fatalf("fee: %d %v", status, b)
	}
}

func TestSigningBasket(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		var ids []string
		for i := 0; i < 2; i++ {
			_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "b", body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
			ids = append(ids, b["paymentId"].(string))
		}
		list := `{"paymentIds":["` + strings.Join(ids, `","`) + `"]}`
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "b", psuID: basketPSU, psuPresent: true, body: list})
		if status != 201 || b["transactionStatus"] != "RCVD" || scaLink(b) == "" {
			t.Fatalf("basket: %d %v", status, b)
		}
		basket := b["basketId"].(string)
		h.authorise(scaLink(b), sandbox.KariNumber)
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/signing-baskets/" + basket + "/status"}); b["transactionStatus"] != "ACTC" {
			t.Fatalf("after one SCA: %v", b)
		}
		for _, id := range ids {
			if p, _ := h.st.GetPayment(context.Background(), id); p.Status != "ACSC" {
				t.Fatalf("payment %s: %s", id, p.Status)
			}
		}
		// Rules.
		_, pb, _ := h.call(tppCall{method: "POST", path: "/v1/periodic-payments/domestic-norway-credit-transfers", sid: "b",
			body: strings.TrimSuffix(paymentBody("5.00", kariIBAN, olaIBAN, ""), "}") + `,"startDate":"` + h.clk.now().AddDate(0, 0, 1).Format("2006-01-02") + `","frequency":"Monthly"}`})
		periodic, _ := pb["paymentId"].(string)
		_, fresh, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "b", body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
		freshID := fresh["paymentId"].(string)
		many := make([]string, 11)
		for i := range many {
			many[i] = `"x` + fmt.Sprint(i) + `"`
		}
		for _, tc := range []struct {
			body   string
			status int
			code   string
		}{
			{`{"paymentIds":["` + freshID + `","` + periodic + `"]}`, 400, "REFERENCE_MIX_INVALID"},
			{`{"paymentIds":[` + strings.Join(many, ",") + `]}`, 400, "FORMAT_ERROR"},
			{`{"paymentIds":[]}`, 400, "FORMAT_ERROR"},
			{`{"paymentIds":["` + freshID + `","` + freshID + `"]}`, 400, "FORMAT_ERROR"},
			{`{"paymentIds":["enc!!unknown"]}`, 400, "FORMAT_ERROR"},
			{`{"paymentIds":["` + ids[0] + `"]}`, 409, "REFERENCE_STATUS_INVALID"},
		} {
			status, b, _ := h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "b", psuID: basketPSU, psuPresent: true, body: tc.body})
			if status != tc.status || errCode(b) != tc.code {
				t.Errorf("%s: %d %v, want %d %s", tc.body, status, b, tc.status, tc.code)
			}
		}
		if periodic == "" {
			t.Fatalf("periodic payment not created: %v", pb)
		}
		// Another TPP cannot read the basket.
		if status, _, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "GET", path: "/v1/signing-baskets/" + basket}); status != 403 {
			t.Fatalf("other TPP: %d", status)
		}
	})
}

func TestPeriodicMonthlyVariableDuplicates(t *testing.T) {
	h := newHarness(t, "sqlite")
	start := h.clk.now().AddDate(0, 0, 1).Format("2006-01-02")
	base := strings.TrimSuffix(paymentBody("5.00", kariIBAN, olaIBAN, ""), "}") + `,"startDate":"` + start + `","frequency":"MonthlyVariable","monthsOfExecution":`
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/periodic-payments/domestic-norway-credit-transfers", body: base + `["1","3","3"]}`}); status != 400 {
		t.Fatalf("duplicate months: %d %v", status, b)
	}
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/periodic-payments/domestic-norway-credit-transfers", sid: "x", body: base + `["1","3"]}`}); status != 201 {
		t.Fatalf("distinct months: %d %v", status, b)
	}
	_ = store.PaymentPeriodic
}

// TestAuthoriseAfterMidnight: a payment dated the day it was created can
// still be authorised and executed on a later day.
func TestAuthoriseAfterMidnight(t *testing.T) {
	h := newHarness(t, "sqlite")
	today := h.clk.now().Format("2006-01-02")
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "m1",
		body: paymentBody("10.00", kariIBAN, olaIBAN, `,"requestedExecutionDate":"`+today+`"`)})
	id, _ := b["paymentId"].(string)
	if id == "" {
		t.Fatalf("create: %v", b)
	}
	h.clk.add(36 * time.Hour)
	// The creation's SCA link has expired: start a new authorisation.
	status, a, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers/" + id + "/authorisations", sid: "m1"})
	if status != 201 || scaLink(a) == "" {
		t.Fatalf("authorisation: %d %v", status, a)
	}
	h.authorise(scaLink(a), sandbox.KariNumber)
	h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
	if p, _ := h.st.GetPayment(context.Background(), id); p.Status != "ACSC" {
		t.Fatalf("status %s", p.Status)
	}
}

// TestConcurrentBatchRunsNeverOverdraw: 50 authorised payments of NOK 1000
// from an account holding NOK 20 000, executed by four batch runs at once
// while mock transactions debit the same account: as many settle as the
// funds allow, the others wait for funds (ACCP), and every booking and
// balance movement exists exactly once on both sides.
func TestConcurrentBatchRunsNeverOverdraw(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"55555555555","name":"Rik","type":"private"}`})
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts", body: `{"customerNumber":"55555555555","accountName":"Konto","bban":"86011117947","currency":"NOK","balances":[{"balanceType":"expected","balanceAmount":{"amount":20000,"currency":"NOK"}},{"balanceType":"closingBooked","balanceAmount":{"amount":20000,"currency":"NOK"}}]}`})
		if status != 201 {
			t.Fatalf("account: %d %v", status, b)
		}
		debtorID := b["id"].(string)
		rik, _ := h.st.GetCustomerByNumber(ctx, testTPP, "55555555555")
		olaBefore := h.balance(olaIBAN)
		for i := 0; i < 50; i++ {
			_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", body: paymentBody("1000.00", "NO9386011117947", olaIBAN, "")})
			p, err := h.st.GetPayment(ctx, b["paymentId"].(string))
			if err != nil {
				t.Fatal(err)
			}
			p.Status, p.CustomerID, p.DebtorAccountID = pis.StatusAccepted, rik.ID, debtorID
			if err := h.st.UpdatePayment(ctx, p, pis.StatusReceived); err != nil {
				t.Fatal(err)
			}
		}
		srv := New(Config{Store: h.st, Sandbox: true, Now: h.clk.now})
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := srv.pis.BatchRun(ctx, ""); err != nil {
					t.Error(err)
				}
			}()
		}
		// Meanwhile 20 mock transactions of NOK -1 move the same balances.
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts/" + debtorID + "/transactions",
					body: `[{"amount":-1,"currency":"NOK","bookingDate":"2026-11-01","remittanceInformationUnstructured":"Gebyr"}]`}); status != 201 {
					t.Errorf("mock transaction: %d %v", status, b)
				}
			}()
		}
		wg.Wait()
		due, _ := h.st.ListPaymentsDue(ctx, "2999-01-01", "")
		var waiting int
		for _, p := range due {
			if p.Status == pis.StatusAcceptedCustomerProfile && p.FundsAvailable == "false" {
				waiting++
			}
		}
		settled := 50 - waiting
		txs, _, _ := h.st.ListTransactions(ctx, debtorID, store.TransactionFilter{Booked: true})
		bs, _ := h.st.ListBalances(ctx, debtorID)
		// The mock debits may land before or after the payments: 19 or 20
		// payments fit, and every booking is there exactly once, after
		// the opening balance's.
		if (settled != 19 && settled != 20) || len(txs) != 1+settled+20 {
			t.Fatalf("%d settled, %d debits booked", settled, len(txs))
		}
		want := int64(2_000_000 - settled*100_000 - 20*100)
		for _, b := range bs {
			if b.Amount != want {
				t.Fatalf("balance %s = %d, want %d (a lost update or a double booking)", b.Type, b.Amount, want)
			}
		}
		var ob int64
		fmt.Sscan(olaBefore, &ob)
		if h.balance(olaIBAN) != fmt.Sprint(ob+int64(settled)*100000) {
			t.Fatalf("creditor %s → %s after %d payments", olaBefore, h.balance(olaIBAN), settled)
		}
	})
}

// BenchmarkCreatePayment is a payment initiation through the backend
// handler (validation, idempotency key, store, SCA flow), with p99.
func BenchmarkCreatePayment(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			h := newBenchHarness(b, kind)
			body := paymentBody("150.00", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"Middag"`)
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				status, resp := h.post("/v1/payments/domestic-norway-credit-transfers", body)
				lat = append(lat, time.Since(t0))
				if status != 201 {
					b.Fatalf("%d %s", status, resp)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// TestPaymentRulesThroughHTTP: each body rule answers 400 FORMAT_ERROR
// naming the field, through the handler.
func TestPaymentRulesThroughHTTP(t *testing.T) {
	h := newHarness(t, "sqlite")
	yesterday := h.clk.now().AddDate(0, 0, -2).Format("2006-01-02")
	for _, tc := range []struct {
		name, body, path string
	}{
		{"valid", paymentBody("1.50", kariIBAN, olaIBAN, ""), ""},
		{"amount not positive", paymentBody("0.00", kariIBAN, olaIBAN, ""), "$.instructedAmount.amount"},
		{"too many decimals", paymentBody("1.505", kariIBAN, olaIBAN, ""), "$.instructedAmount.amount"},
		{"IBAN check digits", paymentBody("1.50", kariIBAN, "NO0012031020016", ""), "$.creditorAccount.iban"},
		{"invalid KID", paymentBody("1.50", kariIBAN, olaIBAN, `,"remittanceInformationStructured":{"reference":"1234567891","referenceType":"SCOR"}`), "$.remittanceInformationStructured.reference"},
		{"structured and unstructured", paymentBody("1.50", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"x","remittanceInformationStructured":{"reference":"12345678903","referenceType":"SCOR"}`), "$.remittanceInformationStructured"},
		{"execution date in the past", paymentBody("1.50", kariIBAN, olaIBAN, `,"requestedExecutionDate":"`+yesterday+`"`), "$.requestedExecutionDate"},
		{"same debtor and creditor", paymentBody("1.50", kariIBAN, kariIBAN, ""), "$.creditorAccount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "r", body: tc.body})
			if tc.path == "" {
				if status != 201 {
					t.Fatalf("%d %v", status, b)
				}
				return
			}
			if status != 400 || !strings.Contains(fmt.Sprint(b), "FORMAT_ERROR") || !strings.Contains(fmt.Sprint(b), tc.path) {
				t.Fatalf("%d %v, want FORMAT_ERROR at %s", status, b, tc.path)
			}
		})
	}
}

// TestInstantPaymentWithoutFunds: an instant payment the debtor cannot
// cover is rejected at SCA (ACTC -> RJCT, fundsAvailable false), nothing
// is booked, and the PSU is sent back with the failure.
func TestInstantPaymentWithoutFunds(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		h.noFundsCustomer()
		before := h.balance(tomIBAN)
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "p1", body: paymentBody("100.00", tomIBAN, olaIBAN, "")})
		id, _ := b["paymentId"].(string)
		if id == "" {
			t.Fatalf("create: %v", b)
		}
		q := h.authorise(scaLink(b), tomNumber)
		if q.Get("code") == "" || q.Get("psu-id") != "" {
			t.Fatalf("redirect after an instant payment without funds: %v", q)
		}
		p, err := h.st.GetPayment(context.Background(), id)
		if err != nil || p.Status != pis.StatusRejected || p.FundsAvailable != "false" {
			t.Fatalf("payment: %+v %v", p, err)
		}
		if h.balance(tomIBAN) != before {
			t.Fatalf("Tom's balance moved: %s -> %s", before, h.balance(tomIBAN))
		}
	})
}

// The sandbox scenario of a customer without funds, made as a TPP makes
// it: a customer and an account with no balance, through the mock-data
// operations (README, "Sandbox data set").
const (
	tomNumber = "31128012345"
	tomBBAN   = "12031030011"
)

func (h *harness) noFundsCustomer() {
	h.t.Helper()
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/customers",
		body: `{"customerNumber":"` + tomNumber + `","name":"Tom Tomlomme","type":"private"}`}); status != 201 {
		h.t.Fatalf("no-funds customer: %d %v", status, b)
	}
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts",
		body: `{"customerNumber":"` + tomNumber + `","accountName":"Brukskonto uten dekning","bban":"` + tomBBAN + `","currency":"NOK"}`}); status != 201 {
		h.t.Fatalf("no-funds account: %d %v", status, b)
	}
}
