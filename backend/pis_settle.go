package backend

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// execute books a due payment in one transaction: it checks the debtor's
// funds (expected balance plus credit line), debits the debtor, credits a
// creditor that is one of the bank's own accounts, moves both balances and
// sets the status. Without funds an instant payment is rejected (RJCT) and
// a batch payment waits for funds (ACCP); fundsAvailable says which. It
// reports whether the payment settled.
func (s *Server) execute(ctx context.Context, p *store.Payment, instant bool) (bool, error) {
	settled := false
	err := s.cfg.Store.Atomically(ctx, func(tx store.Store) error {
		cur, err := tx.GetPayment(ctx, p.ID)
		if err != nil {
			return err
		}
		from := cur.Status
		if from != StatusAccepted && from != StatusPending && from != StatusAcceptedCustomerProfile {
			return nil // another run or a cancellation got there first
		}
		in, err := instructionOf(cur)
		if err != nil {
			s.log.Error("payment unreadable", slog.Any("error", err))
			return errPaymentState
		}
		// Lock the debtor and every own creditor account before reading
		// balances: concurrent runs neither overdraw nor lose a booking.
		lock := []string{cur.DebtorAccountID}
		for i := range in.Creditor {
			c := &in.Creditor[i]
			if own, err := tx.GetAccountByNumber(ctx, c.CreditorAccount.IBAN, c.CreditorAccount.BBAN); err == nil {
				lock = append(lock, own.ID)
			}
		}
		if err := tx.LockAccounts(ctx, lock...); err != nil {
			return err
		}
		// Re-read after the lock: another run may have moved it meanwhile.
		if cur, err = tx.GetPayment(ctx, p.ID); err != nil {
			return err
		}
		if cur.Status != from {
			return nil
		}
		debtor, err := tx.GetAccount(ctx, cur.DebtorAccountID)
		if err != nil {
			return err
		}
		bs, err := tx.ListBalances(ctx, debtor.ID)
		if err != nil {
			return err
		}
		if available(bs)+debtor.CreditLimit < cur.Amount {
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
		day := s.bankToday()
		var debits []store.Transaction
		credits := map[string][]store.Transaction{}
		creditAccounts := map[string]*store.Account{}
		for i := range in.Creditor {
			c := &in.Creditor[i]
			text := remittance(c)
			d, _ := json.Marshal(map[string]any{
				"creditorName": c.CreditorName, "creditorAccount": accountReference{IBAN: c.CreditorAccount.IBAN, BBAN: c.CreditorAccount.BBAN},
				"remittanceInformationUnstructured": text, "remittanceInformationUnstructuredArray": []string{text},
				"endToEndIdentification": c.EndToEndIdentification,
			})
			debits = append(debits, store.Transaction{Booked: true, Amount: -c.InstructedAmount.Minor, Currency: c.InstructedAmount.Currency,
				BookingDate: day, ValueDate: day, Details: d})
			if own, err := tx.GetAccountByNumber(ctx, c.CreditorAccount.IBAN, c.CreditorAccount.BBAN); err == nil && own.Currency == c.InstructedAmount.Currency {
				cd, _ := json.Marshal(map[string]any{
					"debtorName": debtor.Name, "debtorAccount": accountReference{IBAN: debtor.IBAN, BBAN: debtor.BBAN},
					"remittanceInformationUnstructured": text, "remittanceInformationUnstructuredArray": []string{text},
					"endToEndIdentification": c.EndToEndIdentification,
				})
				credits[own.ID] = append(credits[own.ID], store.Transaction{Booked: true, Amount: c.InstructedAmount.Minor,
					Currency: c.InstructedAmount.Currency, BookingDate: day, ValueDate: day, Details: cd})
				creditAccounts[own.ID] = own
			}
		}
		if !instant {
			if err := movePayment(ctx, tx, cur, StatusSettlementInProcess); err != nil {
				return err
			}
		}
		if err := tx.AddTransactions(ctx, debtor.ID, debits); err != nil {
			return err
		}
		if err := moveBalances(ctx, tx, debtor, debits, s.cfg.Now()); err != nil {
			return err
		}
		for id, txs := range credits {
			if err := tx.AddTransactions(ctx, id, txs); err != nil {
				return err
			}
			if err := moveBalances(ctx, tx, creditAccounts[id], txs, s.cfg.Now()); err != nil {
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

// BatchRun executes every payment due today (all but periodic ones) and
// returns how many settled and how many lacked funds. Several backend
// instances may run it at once: each payment is taken by one.
func (s *Server) BatchRun(ctx context.Context) (settled, noFunds int, err error) {
	due, err := s.cfg.Store.ListPaymentsDue(ctx, s.bankToday())
	if err != nil {
		return 0, 0, err
	}
	for i := range due {
		ok, err := s.execute(ctx, &due[i], false)
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

// runBatch is POST /v1/sandbox/payment-batch-runs: a batch run now.
func (s *Server) runBatch(w http.ResponseWriter, r *http.Request, _ *tppcontext.Context) *bgerror.Error {
	settled, noFunds, err := s.BatchRun(r.Context())
	if err != nil {
		return s.storeError(err, "the batch run")
	}
	writeJSON(w, http.StatusOK, map[string]any{"executedAt": s.cfg.Now().UTC().Format(time.RFC3339), "settled": settled, "insufficientFunds": noFunds})
	return nil
}
