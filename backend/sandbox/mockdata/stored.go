package mockdata

import (
	"encoding/json"
	"time"

	"github.com/obgw/obgw/backend/ledger"
	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// What a mock-data body stores: the account, balances and transaction
// details it describes, written as the store keeps them. The sandbox's
// operations and the operator import both store through these.

// Balances are the balances in, as stored; a balance without
// lastChangeDateTime changed at now.
func Balances(in []Balance, now time.Time) []store.Balance {
	out := make([]store.Balance, 0, len(in))
	for _, b := range in {
		at := b.LastChangeDateTime
		if at.IsZero() {
			at = now
		}
		out = append(out, store.Balance{Type: b.Type, Amount: b.Amount.Minor, Currency: b.Amount.Currency, ReferenceDate: b.ReferenceDate, LastChange: at})
	}
	return out
}

// AccountOf reads the body of a mock account or card account (kind):
// the account it describes, its owner's customer number and its balances.
func AccountOf(kind store.AccountKind, body []byte, now time.Time) (*store.Account, string, []store.Balance, *bgerror.Error) {
	if kind == store.KindCardAccount {
		in, errs := ParseCardAccount(body, now)
		if len(errs) > 0 {
			return nil, "", nil, respond.FieldErrors(errs)
		}
		extra, _ := json.Marshal(map[string]string{"cardId": in.CardID, "cardIdVNo": in.CardIDVNo, "accountNumber": in.AccountNumber, "expiry": in.Expiry})
		a := &store.Account{Kind: kind, Name: in.Name, Product: in.Product, CashAccountType: "CARD", Currency: in.Currency,
			MaskedPAN: in.MaskedPAN, CreditLimit: in.CreditLimit.Minor, Status: in.Status, Extra: extra}
		return a, in.CustomerNumber, Balances(in.Balances, now), nil
	}
	in, errs := ParseAccount(body, now)
	if len(errs) > 0 {
		return nil, "", nil, respond.FieldErrors(errs)
	}
	a := &store.Account{Kind: kind, Name: in.Name, Product: in.Product, CashAccountType: in.CashAccountType, Currency: in.Currency,
		BBAN: in.BBAN, IBAN: in.IBAN, CreditLimit: in.CreditLine.Minor}
	balances := Balances(in.Balances, now)
	if _, _, e := ledger.BookedTarget(balances, "$.balances"); e != nil {
		return nil, "", nil, e
	}
	return a, in.CustomerNumber, balances, nil
}

// AccountTransactionDetails is what an account transaction serves besides its id,
// dates and amount.
func AccountTransactionDetails(t *AccountTransaction) map[string]any {
	d := map[string]any{}
	put := func(k, v string) {
		if v != "" {
			d[k] = v
		}
	}
	put("remittanceInformationUnstructured", t.RemittanceInformationUnstructured)
	if t.RemittanceInformationUnstructured != "" {
		d["remittanceInformationUnstructuredArray"] = []string{t.RemittanceInformationUnstructured}
	}
	put("creditorId", t.CreditorID)
	put("creditorName", t.CreditorName)
	put("ultimateCreditor", t.UltimateCreditor)
	put("debtorName", t.DebtorName)
	put("ultimateDebtor", t.UltimateDebtor)
	put("purposeCode", t.PurposeCode)
	put("bankTransactionCode", t.BankTransactionCode)
	put("entryReference", t.EntryReference)
	if t.CreditorAccount != nil {
		d["creditorAccount"] = resource.AccountReference{IBAN: t.CreditorAccount.IBAN, BBAN: t.CreditorAccount.BBAN, Currency: t.CreditorAccount.Currency}
	}
	if t.DebtorAccount != nil {
		d["debtorAccount"] = resource.AccountReference{IBAN: t.DebtorAccount.IBAN, BBAN: t.DebtorAccount.BBAN, Currency: t.DebtorAccount.Currency}
	}
	return d
}

// CardTransactionDetails is what a card transaction serves besides its id, booking
// date and transaction amount.
func CardTransactionDetails(t *CardTransaction) map[string]any {
	d := map[string]any{
		"terminalId":                     t.TerminalID,
		"transactionDate":                t.TransactionDate,
		"originalAmount":                 resource.AmountOf(t.OriginalAmount.Minor, t.OriginalAmount.Currency),
		"merchantCategoryCode":           t.MerchantCategoryCode,
		"cardAcceptorId":                 t.CardAcceptorID,
		"cardAcceptorAddress":            addressJSON(t.CardAcceptorAddress),
		"maskedPan":                      t.MaskedPAN,
		"transactionDetails":             t.TransactionDetails,
		"invoiced":                       t.Invoiced,
		"proprietaryBankTransactionCode": t.ProprietaryBankTransactionCode,
		"tppTransactionId":               t.CardTransactionID,
	}
	// The exchange as account transactions serve theirs, an array of
	// reportExchangeRate, and the markup beside it at the transaction's
	// top level, as Berlin Group's card transaction has it (issue 29, 12).
	if x := t.CurrencyExchange; x != nil {
		d["currencyExchange"] = []map[string]any{{
			"sourceCurrency": x.SourceCurrency, "targetCurrency": x.TargetCurrency, "unitCurrency": x.UnitCurrency,
			"exchangeRate": x.ExchangeRate, "quotationDate": x.QuotationDate,
		}}
		d["markupFee"] = resource.AmountOf(x.MarkupFee.Minor, x.MarkupFee.Currency)
		d["markupFeePercentage"] = x.MarkupFeePercentage
	}
	if m := t.Markup; m != nil {
		if m.Fee != nil {
			d["markupFee"] = resource.AmountOf(m.Fee.Minor, m.Fee.Currency)
		}
		if m.Percentage != "" {
			d["markupFeePercentage"] = m.Percentage
		}
	}
	return d
}

func addressJSON(a Address) map[string]string {
	m := map[string]string{}
	for k, v := range map[string]string{"street": a.Street, "buildingNumber": a.BuildingNumber, "postalCode": a.PostalCode, "city": a.City, "country": a.Country} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}
