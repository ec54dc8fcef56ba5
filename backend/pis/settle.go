package pis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/fx"
	"github.com/obgw/obgw/backend/ledger"
	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Execute books a due payment in one transaction: it checks the debtor's
// funds (expected balance plus credit line) in the account's currency,
// debits the debtor, credits a creditor that is one of the bank's own
// accounts, moves both balances and sets the status. Amounts in another
// currency than an account's are converted first (fx.go). Without funds an
// instant payment is rejected (RJCT) and a batch payment waits for funds
// (ACCP); fundsAvailable says which. It reports whether the payment
// settled.
func (s *Service) Execute(ctx context.Context, p *store.Payment, instant bool) (bool, error) {
	day := s.bankToday()
	in, err := instructionOf(p)
	if err != nil {
		s.Log.Error("payment unreadable", slog.Any("error", err))
		return false, errPaymentState
	}
	// Read once: the debtor (its currency and owner never change) and
	// its creditors among the bank's own accounts, outside the
	// transaction, with the quotes (no rate source is called while
	// accounts are locked); inside it, after the lock, the payment's
	// status and the debtor's funds and credit line as they are now.
	debtor, err := s.Store.GetAccount(ctx, p.DebtorAccountID)
	if err != nil {
		return false, err
	}
	own := ownCreditors(ctx, s.Store, debtor, in)
	rates, err := s.quotesFor(ctx, debtor, in, own, day)
	if err != nil {
		return false, err
	}
	settled := false
	err = s.Store.Atomically(ctx, func(tx store.Store) error {
		// Lock the debtor and every own creditor account before reading
		// the payment and balances: concurrent runs neither overdraw nor
		// lose a booking.
		lock := []string{debtor.ID}
		for _, a := range own {
			if a != nil {
				lock = append(lock, a.ID)
			}
		}
		if err := tx.LockAccounts(ctx, lock...); err != nil {
			return err
		}
		cur, err := tx.GetPayment(ctx, p.ID)
		if err != nil {
			return err
		}
		from := cur.Status
		if from != StatusAccepted && from != StatusPending && from != StatusAcceptedCustomerProfile || cur.DebtorAccountID != debtor.ID {
			return nil // another run or a cancellation got there first
		}
		debtor, err := tx.GetAccount(ctx, debtor.ID)
		if err != nil {
			return err
		}
		var debits []store.Transaction
		var total int64 // the debit, in the debtor account's currency
		credits := map[string][]store.Transaction{}
		creditAccounts := map[string]*store.Account{}
		for i := range in.Creditor {
			c := &in.Creditor[i]
			amount, q, err := rates.convert(c.InstructedAmount, debtor.Currency)
			if err != nil {
				return err
			}
			if total += amount; total < 0 {
				return fmt.Errorf("%w: the payment's sum is out of range", errExchange)
			}
			d := bookedDetails(map[string]any{"creditorName": c.CreditorName,
				"creditorAccount": resource.AccountReference{IBAN: c.CreditorAccount.IBAN, BBAN: c.CreditorAccount.BBAN}}, c, -1, q)
			debits = append(debits, store.Transaction{Booked: true, Amount: -amount, Currency: debtor.Currency,
				BookingDate: day, ValueDate: day, Details: d})
			own := own[i]
			if own == nil {
				continue // another bank's account: debited only
			}
			amount, q, err = rates.convert(c.InstructedAmount, own.Currency)
			if err != nil {
				return err
			}
			cd := bookedDetails(map[string]any{"debtorName": debtor.Name,
				"debtorAccount": resource.AccountReference{IBAN: debtor.IBAN, BBAN: debtor.BBAN}}, c, 1, q)
			credits[own.ID] = append(credits[own.ID], store.Transaction{Booked: true, Amount: amount,
				Currency: own.Currency, BookingDate: day, ValueDate: day, Details: cd})
			creditAccounts[own.ID] = own
		}
		bs, err := tx.ListBalances(ctx, debtor.ID)
		if err != nil {
			return err
		}
		if available(bs)+debtor.CreditLimit < total {
			cur.FundsAvailable = "false"
			to := StatusAcceptedCustomerProfile
			if instant {
				to = StatusRejected
			}
			if to == from {
				return nil
			}
			return movePayment(ctx, tx, cur, to)
		}
		if !instant {
			if err := movePayment(ctx, tx, cur, StatusSettlementInProcess); err != nil {
				return err
			}
		}
		if err := tx.AddTransactions(ctx, debtor.ID, debits); err != nil {
			return err
		}
		if err := ledger.Move(ctx, tx, debtor, debits, s.Now()); err != nil {
			return err
		}
		for id, txs := range credits {
			if err := tx.AddTransactions(ctx, id, txs); err != nil {
				return err
			}
			if err := ledger.Move(ctx, tx, creditAccounts[id], txs, s.Now()); err != nil {
				return err
			}
		}
		cur.FundsAvailable = "true"
		if err := movePayment(ctx, tx, cur, StatusSettled); err != nil {
			return err
		}
		settled = true
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		return false, nil // a concurrent run settled or moved it
	}
	if err == nil && !settled && instant {
		return false, errNoFunds
	}
	return settled, err
}

// bookedDetails is what a payment's booked transaction serves besides its
// id, dates and amount: the counterparty (party), the remittance and the
// endToEndIdentification when the TPP sent them (an empty member is left
// out, not served as ""), and, when the payment was
// converted at q, the instructed amount as originalAmount (signed as the
// booking: sign -1 for a debit) and the rate as currencyExchange (Berlin
// Group v1.3 Transactions: an array of reportExchangeRate).
func bookedDetails(party map[string]any, c *payments.Payment, sign int64, q *fx.Quote) json.RawMessage {
	if text := c.RemittanceInformationUnstructured; text != "" {
		party["remittanceInformationUnstructured"] = text
		party["remittanceInformationUnstructuredArray"] = []string{text}
	}
	if refs := structuredRemittance(c); len(refs) > 0 {
		// Structured as sent (a KID stays a KID), in the form the
		// description prefers on transactions (issue 29, 5).
		party["remittanceInformationStructuredArray"] = refs
	}
	if c.EndToEndIdentification != "" {
		party["endToEndIdentification"] = c.EndToEndIdentification
	}
	if q != nil {
		party["originalAmount"] = resource.AmountOf(sign*c.InstructedAmount.Minor, c.InstructedAmount.Currency)
		party["currencyExchange"] = []fx.Quote{*q}
	}
	d, _ := json.Marshal(party)
	return d
}

// available is the balance funds are checked against: expected if the
// account has one, else closingBooked, else interimAvailable.
func available(bs []store.Balance) int64 {
	for _, want := range []string{"expected", "closingBooked", "interimAvailable"} {
		for _, b := range bs {
			if b.Type == want {
				return b.Amount
			}
		}
	}
	return 0
}

// BatchRun executes every payment due today (all but periodic ones) of
// TPP tpp, or of every TPP when tpp is "" (the scheduled run), and returns
// how many settled and how many lacked funds (a payment whose currency
// cannot be converted now is logged and left for the next run). Several
// backend instances may run it at once: each payment is taken by one.
func (s *Service) BatchRun(ctx context.Context, tpp string) (settled, noFunds int, err error) {
	due, err := s.Store.ListPaymentsDue(ctx, s.bankToday(), tpp)
	if err != nil {
		return 0, 0, err
	}
	for i := range due {
		ok, err := s.Execute(ctx, &due[i], false)
		if errors.Is(err, errExchange) || errors.Is(err, errNoRate) {
			// This payment waits for the rate source; the others go on.
			s.Log.Error("payment not executed: no exchange rate", slog.String("payment", due[i].ID), slog.Any("error", err))
			continue
		}
		if err != nil {
			return settled, noFunds, err
		}
		if ok {
			settled++
		} else {
			noFunds++
		}
	}
	return settled, noFunds, nil
}

// RunBatch is POST /v1/sandbox/payment-batch-runs: a batch run now, of
// the caller's payments (its sandbox's).
func (s *Service) RunBatch(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	settled, noFunds, err := s.BatchRun(r.Context(), c.TPP)
	if err != nil {
		return s.storeError(err, "the batch run")
	}
	respond.JSON(w, http.StatusOK, map[string]any{"executedAt": s.Now().UTC().Format(time.RFC3339), "settled": settled, "insufficientFunds": noFunds})
	return nil
}
