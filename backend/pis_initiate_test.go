package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// TestInstructionRoundTrip: what is stored of a parsed payment of each
// kind reads back as the same typed value (pis's TestNoInstructionNoAct:
// a payment without one is not acted on).
func TestInstructionRoundTrip(t *testing.T) {
	h := newHarness(t, "sqlite")
	bulk := `{"debtorAccount":{"iban":"` + kariIBAN + `"},"payments":[` +
		`{"instructedAmount":{"currency":"NOK","amount":"1.50"},"creditorAccount":{"iban":"` + olaIBAN + `"},"creditorName":"A","remittanceInformationUnstructured":"x"},` +
		`{"instructedAmount":{"currency":"NOK","amount":"2.00"},"creditorAccount":{"iban":"` + olaIBAN + `"},"creditorName":"B","endToEndIdentification":"e2e"}]}`
	periodic := strings.TrimSuffix(paymentBody("3.00", kariIBAN, olaIBAN, ""), "}") + `,"startDate":"2027-01-01","frequency":"Monthly"}`
	for _, tc := range []struct{ kind, product, body string }{
		{store.PaymentSingle, pis.DomesticProduct, paymentBody("150.00", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"Middag","requestedExecutionDate":"2027-01-15"`)},
		{store.PaymentBulk, pis.DomesticProduct, bulk},
		{store.PaymentPeriodic, pis.DomesticProduct, periodic},
	} {
		in, errs := payments.Parse(tc.kind, tc.product, []byte(tc.body), "2026-11-25")
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.kind, errs)
		}
		p := &store.Payment{TPP: testTPP, RequestID: tc.kind, Kind: tc.kind, Product: tc.product, Amount: in.Amount.Minor, Currency: in.Amount.Currency,
			ExecutionDate: in.Date, Body: json.RawMessage(tc.body), Status: pis.StatusReceived, Instruction: in}
		if err := h.st.CreatePayment(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		stored, err := h.st.GetPayment(context.Background(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored.Instruction, in) {
			t.Fatalf("%s: read back %+v, want %+v", tc.kind, stored.Instruction, in)
		}
	}
}

// noBodies is a store whose payments read back without their body: a
// server on it that still authorises and executes payments reads their
// stored instruction, not the body.
type noBodies struct{ store.Store }

func (n noBodies) GetPayment(ctx context.Context, id string) (*store.Payment, error) {
	p, err := n.Store.GetPayment(ctx, id)
	if p != nil {
		p.Body = json.RawMessage(`{}`)
	}
	return p, err
}

func (n noBodies) Atomically(ctx context.Context, fn func(store.Store) error) error {
	return n.Store.Atomically(ctx, func(tx store.Store) error { return fn(noBodies{tx}) })
}

// TestPaymentParsedOnce: after initiation, the SCA page's summary, the
// authorisation and the batch run work from the stored instruction.
func TestPaymentParsedOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		srv := newTestServer(t, New(Config{Store: transitionGuard{Store: noBodies{h.st}, t: t}, Tokens: ver, Sandbox: true, Now: h.clk.now}))
		defer srv.Close()
		h.srv = srv
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "p1",
			body: paymentBody("150.00", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"Middag"`)})
		id, _ := b["paymentId"].(string)
		href := scaLink(b)
		p := h.browser()
		page := p.open(href)
		page = body(p.submit(href, page, map[string][]string{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
		page = body(p.submit(href, page, map[string][]string{"step": {"context"}, "context": {"PRIVATE"}}))
		if !strings.Contains(page, "Mottaker AS") || !strings.Contains(page, "150.00") {
			t.Fatalf("the SCA page does not summarise the payment: %s", page)
		}
		resp := p.submit(href, page, map[string][]string{"step": {"confirm"}})
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); !strings.Contains(loc, "psu-id=") {
			t.Fatalf("authorisation: %d %s", resp.StatusCode, loc)
		}
		h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
		if got, err := h.st.GetPayment(context.Background(), id); err != nil || got.Status != pis.StatusSettled {
			t.Fatalf("after the batch run: %+v %v", got, err)
		}
	})
}

// TestReusedRequestIDAnotherPayment (issue 29, 12): a payment initiation
// whose X-Request-ID initiated another payment before (another body) is
// refused naming X-Request-ID, never answered with the first payment; the
// same body again is a retry and gets it.
func TestReusedRequestIDAnotherPayment(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		id := "7c3c1d2e-9b7a-4e55-8f0e-1a2b3c4d5e6f"
		status, first, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, requestID: id, body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
		if status != 201 {
			t.Fatalf("first: %d %v", status, first)
		}
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, requestID: id, body: paymentBody("500.00", kariIBAN, olaIBAN, "")})
		if status != 400 || errCode(b) != "FORMAT_ERROR" || !strings.Contains(fmt.Sprint(b), "X-Request-ID") {
			t.Fatalf("another body under the same X-Request-ID: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, requestID: id, body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
		if status != 201 || b["paymentId"] != first["paymentId"] {
			t.Fatalf("a retry: %d %v", status, b)
		}
	})
}

// TestInitiationNeedsPSUAddress (issue 29, 6): a payment initiation
// without PSU-IP-Address (no PSU present) is 400 FORMAT_ERROR naming the
// header; nothing is stored.
func TestInitiationNeedsPSUAddress(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		for _, path := range []string{"/v1/payments/" + pis.InstantProduct, "/v1/payments/" + pis.DomesticProduct} {
			status, b, _ := h.call(tppCall{method: "POST", path: path, psuAbsent: true, body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
			msgs, _ := b["tppMessages"].([]any)
			if status != 400 || errCode(b) != "FORMAT_ERROR" || len(msgs) != 1 || msgs[0].(map[string]any)["path"] != "PSU-IP-Address" {
				t.Fatalf("%s without PSU-IP-Address: %d %v", path, status, b)
			}
		}
	})
}

// reads counts the payment and account reads of a store, in and out of
// its transactions.
type reads struct {
	store.Store
	payments, accounts, byNumber *atomic.Int64
}

func (c reads) GetPayment(ctx context.Context, id string) (*store.Payment, error) {
	c.payments.Add(1)
	return c.Store.GetPayment(ctx, id)
}

func (c reads) GetAccount(ctx context.Context, id string) (*store.Account, error) {
	c.accounts.Add(1)
	return c.Store.GetAccount(ctx, id)
}

func (c reads) GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*store.Account, error) {
	c.byNumber.Add(1)
	return c.Store.GetAccountByNumber(ctx, owner, iban, bban)
}

func (c reads) Atomically(ctx context.Context, fn func(store.Store) error) error {
	return c.Store.Atomically(ctx, func(tx store.Store) error { return fn(reads{tx, c.payments, c.accounts, c.byNumber}) })
}

// TestExecuteReadsOnce (issue 30, 2): executing a payment to one of the
// bank's own accounts reads the payment once (after the accounts are
// locked), the debtor twice (its currency for the quotes; its funds after
// the lock) and the creditor once, and settles it.
func TestExecuteReadsOnce(t *testing.T) {
	h := newHarness(t, "sqlite")
	id, _ := h.authorisedPayment(h.clk.now().AddDate(0, 0, 7).Format(time.DateOnly), pis.StatusPending)
	ctx := context.Background()
	p, err := h.st.GetPayment(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r := reads{h.st, new(atomic.Int64), new(atomic.Int64), new(atomic.Int64)}
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	s := New(Config{Store: r, Tokens: ver, Sandbox: true, Now: h.clk.now})
	settled, err := s.pis.Execute(ctx, p, false)
	if err != nil || !settled {
		t.Fatalf("execute: %v %v", settled, err)
	}
	if got := [3]int64{r.payments.Load(), r.accounts.Load(), r.byNumber.Load()}; got != [3]int64{1, 2, 1} {
		t.Errorf("execute read the payment, accounts and accounts by number %v times, want [1 2 1]", got)
	}
}
