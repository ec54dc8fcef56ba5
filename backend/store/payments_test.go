package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/obgw/obgw/backend/payments"
)

func TestPaymentsAndBaskets(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		acct := mustAccount(t, s, c.ID, "NO9312345678903")
		body := json.RawMessage(`{"instructedAmount":{"currency":"NOK","amount":"10.00"}}`)
		p := &Payment{TPP: "PSDNO-FSA-1", RequestID: "r1", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers",
			Amount: 1000, Currency: "NOK", ExecutionDate: "2026-11-22", Body: body, Status: "RCVD"}
		wantErr(t, "CreatePayment", s.CreatePayment(ctx, p), nil)
		// The same (TPP, X-Request-ID) never creates a second payment.
		dup := *p
		dup.ID = ""
		wantErr(t, "CreatePayment again", s.CreatePayment(ctx, &dup), ErrConflict)
		got, err := s.GetPaymentByRequest(ctx, "PSDNO-FSA-1", "r1")
		if err != nil || got.ID != p.ID || string(got.Body) != string(body) {
			t.Fatalf("by request: %+v %v", got, err)
		}
		// Another TPP may use the same request id.
		other := *p
		other.TPP = "PSDNO-FSA-2"
		wantErr(t, "CreatePayment other TPP", s.CreatePayment(ctx, &other), nil)

		// Compare-and-set: of concurrent transitions from RCVD, one wins.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := *p
				q.Status, q.CustomerID, q.DebtorAccountID = "ACTC", c.ID, acct.ID
				if s.UpdatePayment(ctx, &q, "RCVD") == nil {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d winners", wins.Load())
		}
		got, _ = s.GetPayment(ctx, p.ID)
		if got.Status != "ACTC" || got.CustomerID != c.ID || got.DebtorAccountID != acct.ID {
			t.Fatalf("after update: %+v", got)
		}
		wantErr(t, "UpdatePayment unknown", s.UpdatePayment(ctx, &Payment{ID: "enc!!nope", Status: "CANC"}, "RCVD"), ErrNotFound)

		// Due: authorised, not periodic, not in the future.
		periodic := &Payment{TPP: "PSDNO-FSA-1", RequestID: "r2", Kind: PaymentPeriodic, Product: p.Product, Amount: 1, Currency: "NOK",
			ExecutionDate: "2026-11-01", Body: body, Status: "ACTC"}
		future := &Payment{TPP: "PSDNO-FSA-1", RequestID: "r3", Kind: PaymentSingle, Product: p.Product, Amount: 1, Currency: "NOK",
			ExecutionDate: "2027-01-01", Body: body, Status: "ACTC"}
		wantErr(t, "periodic", s.CreatePayment(ctx, periodic), nil)
		wantErr(t, "future", s.CreatePayment(ctx, future), nil)
		due, err := s.ListPaymentsDue(ctx, "2026-11-22", "")
		if err != nil || len(due) != 1 || due[0].ID != p.ID {
			t.Fatalf("due %+v %v", due, err)
		}
		for tpp, want := range map[string]int{p.TPP: 1, "PSDNO-FSA-OTHER": 0} {
			if due, err := s.ListPaymentsDue(ctx, "2026-11-22", tpp); err != nil || len(due) != want {
				t.Fatalf("due of %s: %+v %v, want %d", tpp, due, err, want)
			}
		}

		b := &Basket{TPP: "PSDNO-FSA-1", RequestID: "b1", PaymentIDs: []string{p.ID, future.ID}, Status: "RCVD"}
		wantErr(t, "CreateBasket", s.CreateBasket(ctx, b), nil)
		gb, err := s.GetBasket(ctx, b.ID)
		if err != nil || len(gb.PaymentIDs) != 2 || gb.PaymentIDs[1] != future.ID {
			t.Fatalf("basket %+v %v", gb, err)
		}
		if byReq, err := s.GetBasketByRequest(ctx, "PSDNO-FSA-1", "b1"); err != nil || byReq.ID != b.ID {
			t.Fatalf("basket by request %v", err)
		}
		wantErr(t, "CreateBasket again", s.CreateBasket(ctx, &Basket{TPP: "PSDNO-FSA-1", RequestID: "b1", Status: "RCVD"}), ErrConflict)
		gb.Status, gb.CustomerID = "ACTC", c.ID
		wantErr(t, "UpdateBasket", s.UpdateBasket(ctx, gb, "RCVD"), nil)
		wantErr(t, "UpdateBasket lost", s.UpdateBasket(ctx, gb, "RCVD"), ErrConflict)
		wantErr(t, "basket with unknown payment", s.CreateBasket(ctx, &Basket{TPP: "x", RequestID: "b2", PaymentIDs: []string{"enc!!nope"}, Status: "RCVD"}), ErrNotFound)

		// Deleting the PSU removes its payments and baskets.
		wantErr(t, "DeleteCustomer", s.DeleteCustomer(ctx, c.ID), nil)
		if _, err := s.GetPayment(ctx, p.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("payment of a deleted customer: %v", err)
		}
		if _, err := s.GetBasket(ctx, b.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("basket of a deleted customer: %v", err)
		}
		wantErr(t, "DeleteSandbox", s.DeleteSandbox(ctx, "PSDNO-FSA-1"), nil)
		if _, err := s.GetPayment(ctx, future.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("payment after DeleteSandbox: %v", err)
		}
	})
}

// TestPaymentBodyStoredCompact: whitespace a client pads a payment body
// with is not kept; the body reads back as the same JSON, escapes and
// member order included.
func TestPaymentBodyStoredCompact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		pad := strings.Repeat(" \n\t\r", 8<<10) // 32 KiB of whitespace, in five places
		compact := `{"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorName":"Ola \"Nordmann\" \u00e5 ø","remittanceInformationUnstructured":"a  b","x":[1,2.50,true,null]}`
		padded := pad + `{` + pad + `"instructedAmount" :{"currency": "NOK",` + pad + `"amount":"10.00"}, "creditorName" : "Ola \"Nordmann\" \u00e5 ø",` +
			"\n" + `"remittanceInformationUnstructured":"a  b", "x" : [ 1 , 2.50 ,true, null ]` + pad + `}` + pad
		p := &Payment{TPP: "PSDNO-FSA-1", RequestID: "padded", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers",
			Amount: 1000, Currency: "NOK", ExecutionDate: "2026-11-22", Body: json.RawMessage(padded), Status: "RCVD"}
		wantErr(t, "CreatePayment", s.CreatePayment(ctx, p), nil)
		if string(p.Body) != compact {
			t.Errorf("p.Body after CreatePayment = %s, want %s", p.Body, compact)
		}
		var stored int
		if err := s.(*sqlStore).q.QueryRowContext(ctx, `SELECT length(body) FROM payments WHERE id = $1`, p.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if want := len([]rune(compact)); stored != want {
			t.Errorf("stored body is %d characters, want %d (the %d-byte body sent, compacted)", stored, want, len(padded))
		}
		got, err := s.GetPayment(ctx, p.ID)
		if err != nil || string(got.Body) != compact {
			t.Fatalf("GetPayment: %s %v, want %s", got.Body, err, compact)
		}
		bad := &Payment{TPP: "PSDNO-FSA-1", RequestID: "bad", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers",
			Amount: 1000, Currency: "NOK", ExecutionDate: "2026-11-22", Body: json.RawMessage(`{"a":`), Status: "RCVD"}
		wantErr(t, "CreatePayment invalid JSON", s.CreatePayment(ctx, bad), ErrInvalid)
	})
}

// TestPaymentInstructionKept: a payment's instruction is stored with it
// and read back equal; a payment without one reads back without one.
func TestPaymentInstructionKept(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		instr := payments.Instruction{Amount: payments.Money{Currency: "NOK", Minor: 1000}, Date: "2026-11-22",
			Debtor: payments.AccountReference{IBAN: "NO7809232911044"},
			Creditor: []payments.Payment{{Product: "domestic-norway-credit-transfers", InstructedAmount: payments.Money{Currency: "NOK", Minor: 1000},
				CreditorAccount: payments.AccountReference{BBAN: "86011117947"}, CreditorName: "Ola",
				RemittanceInformationStructured: &payments.StructuredRemittance{Reference: "1234", ReferenceType: "KID"}}}}
		p := &Payment{TPP: "PSDNO-FSA-1", RequestID: "typed", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers",
			Amount: 1000, Currency: "NOK", ExecutionDate: "2026-11-22", Body: json.RawMessage(`{}`), Status: "RCVD", Instruction: instr}
		wantErr(t, "CreatePayment", s.CreatePayment(ctx, p), nil)
		got, err := s.GetPayment(ctx, p.ID)
		if err != nil || !reflect.DeepEqual(got.Instruction, instr) {
			t.Fatalf("GetPayment: %+v %v, want %+v", got.Instruction, err, instr)
		}
		bare := &Payment{TPP: "PSDNO-FSA-1", RequestID: "bare", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers",
			Amount: 1000, Currency: "NOK", ExecutionDate: "2026-11-22", Body: json.RawMessage(`{}`), Status: "RCVD"}
		wantErr(t, "CreatePayment without instruction", s.CreatePayment(ctx, bare), nil)
		if got, err := s.GetPayment(ctx, bare.ID); err != nil || len(got.Instruction.Creditor) != 0 {
			t.Fatalf("GetPayment without instruction: %+v %v", got.Instruction, err)
		}
	})
}
