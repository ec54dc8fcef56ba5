package pis

import (
	"context"
	"errors"
	"fmt"

	"github.com/obgw/obgw/backend/fx"
	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/store"
)

// Currency conversion of payments. An account is debited and credited in
// its own currency only: a payment instructed in another currency is
// converted at the rate Config.Rates quotes for the bank's date
// (fx.Source; the fixed fx.Sandbox table in a sandbox), each creditor's
// amount on its own, rounded half away from zero to the account
// currency's minor unit (money.Convert). The booked transaction carries
// the amount in the account's currency (so the booked balance stays the
// sum of the booked transactions, release 1.21.21), the instructed amount
// as originalAmount, and the rate as currencyExchange. Funds are checked
// in the account's currency, against the converted sum.

// errExchange is a conversion a payment needs that cannot be made now: the
// rate source failed, or the converted amount is out of range. The payment
// keeps its status and a later run tries again.
var errExchange = errors.New("currency conversion failed")

// errNoRate is a conversion the bank does not make at all (fx.ErrNoRate):
// the payment cannot be executed, and is rejected at SCA.
var errNoRate = errors.New("the bank does not exchange the payment's currency")

type currencyPair struct{ source, target string }

// quotes are the rates of one payment's booking, quoted before its
// transaction so that no rate source is called while accounts are locked.
type quotes map[currencyPair]fx.Quote

// accountFinder finds an account by its number: the store or a
// transaction of it.
type accountFinder interface {
	GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*store.Account, error)
}

// ownCreditors are the creditor accounts of in that are the bank's own,
// by creditor (nil: another bank's account), found among the accounts of
// the debtor's owner (its sandbox, in a sandbox).
func ownCreditors(ctx context.Context, st accountFinder, debtor *store.Account, in *payments.Instruction) []*store.Account {
	own := make([]*store.Account, len(in.Creditor))
	for i := range in.Creditor {
		c := &in.Creditor[i]
		if a, err := st.GetAccountByNumber(ctx, debtor.Owner, c.CreditorAccount.IBAN, c.CreditorAccount.BBAN); err == nil {
			own[i] = a
		}
	}
	return own
}

// quotesFor quotes every conversion the payment needs: its creditors'
// instructed currencies into the debtor account's currency, and into the
// currency of each creditor account that is one of the bank's own (own,
// as ownCreditors finds them).
func (s *Service) quotesFor(ctx context.Context, debtor *store.Account, in *payments.Instruction, own []*store.Account, day string) (quotes, error) {
	out := quotes{}
	need := func(source, target string) error {
		k := currencyPair{source, target}
		if _, ok := out[k]; ok || source == target {
			return nil
		}
		q, err := s.Rates.Quote(ctx, source, target, day)
		if errors.Is(err, fx.ErrNoRate) {
			return fmt.Errorf("%w: %w", errNoRate, err)
		} else if err != nil {
			return fmt.Errorf("%w: %w", errExchange, err)
		}
		out[k] = q
		return nil
	}
	for i := range in.Creditor {
		c := &in.Creditor[i]
		if err := need(c.InstructedAmount.Currency, debtor.Currency); err != nil {
			return nil, err
		}
		if own[i] != nil {
			if err := need(c.InstructedAmount.Currency, own[i].Currency); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// convert returns amount in currency, and the quote applied (nil when
// amount is in currency already).
func (qs quotes) convert(amount payments.Money, currency string) (int64, *fx.Quote, error) {
	if amount.Currency == currency {
		return amount.Minor, nil, nil
	}
	q, ok := qs[currencyPair{amount.Currency, currency}]
	if !ok {
		return 0, nil, fmt.Errorf("%w: no quote from %s to %s", errExchange, amount.Currency, currency)
	}
	v, err := q.Convert(amount.Minor)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s %d into %s at %s: %w", errExchange, amount.Currency, amount.Minor, currency, q.ExchangeRate, err)
	}
	return v, &q, nil
}
