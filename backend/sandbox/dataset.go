package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/store"
)

// Fixed customer numbers (what the PSU types at the sandbox SCA page): the
// description's data set of exactly two private customers (each with two
// accounts and a card account) and two corporate ones (each with two
// accounts). The private ones are valid Norwegian national identity
// numbers that the contract's examples do not use, so the examples create
// their customer (13039319955) without a clash. Scenario customers (an
// account without funds) are made with the mock-data operations, as a TPP
// would (README, "Sandbox data set").
const (
	KariNumber      = "15038540189" // private, with two accounts and a card account
	OlaNumber       = "22079140086" // private, with two accounts and a card account
	FjordfiskNumber = "910000001"   // corporate, Kari has VIEW+REGISTER on both accounts
	BakeriNumber    = "910000002"   // corporate, Ola has VIEW+REGISTER on one account
)

type txSpec struct {
	daysAgo int
	amount  int64 // minor units, signed
	booked  bool
	text    string
	other   string // counterparty name
}

type accountSpec struct {
	prefix   string // ten digits of the BBAN
	name     string
	product  string
	cashType string
	currency string
	txs      []txSpec
}

type cardSpec struct {
	maskedPAN string
	name      string
	product   string
	limit     int64
	txs       []txSpec
}

type customerSpec struct {
	number, name string
	typ          store.CustomerType
	accounts     []accountSpec
	cards        []cardSpec
}

var salaryAndBills = []txSpec{
	{5, 4_250_000, true, "Lønn november", "Arbeidsgiver AS"},
	{9, -1_249_00, true, "Strøm oktober", "Fjordkraft AS"},
	{33, 4_250_000, true, "Lønn oktober", "Arbeidsgiver AS"},
	{40, -899_00, true, "Mobilabonnement", "Telenor Norge AS"},
	{95, 4_250_000, true, "Lønn august", "Arbeidsgiver AS"},
	{120, -12_500_00, true, "Husleie juli", "Utleie AS"},
	{0, -350_00, false, "Kiwi 123 Oslo", "Kiwi Norge AS"},
}

var savings = []txSpec{
	{20, 1_000_000, true, "Overføring sparing", ""},
	{50, 1_000_000, true, "Overføring sparing", ""},
	{110, 13_000_000, true, "Innskudd", ""},
}

var cardPurchases = []txSpec{
	{3, -459_00, true, "REMA 1000 GRUNERLOKKA", "REMA 1000"},
	{12, -1_299_00, true, "ELKJOP OSLO CITY", "Elkjop"},
	{1, -89_00, false, "NARVESEN OSLO S", "Narvesen"},
}

var customers = []customerSpec{
	{number: KariNumber, name: "Kari Nordmann", typ: store.CustomerPrivate,
		accounts: []accountSpec{
			{"1203101001", "Brukskonto", "Brukskonto", "CACC", "NOK", salaryAndBills},
			{"1203101002", "Sparekonto", "Høyrentekonto", "SVGS", "NOK", savings},
		},
		cards: []cardSpec{{"5412xxxxxxxx1234", "Kari Mastercard", "Mastercard Gold", 5_000_000, cardPurchases}},
	},
	{number: OlaNumber, name: "Ola Nordmann", typ: store.CustomerPrivate,
		accounts: []accountSpec{
			{"1203102001", "Brukskonto", "Brukskonto", "CACC", "NOK", salaryAndBills[:4]},
			{"1203102002", "BSU", "BSU", "SVGS", "NOK", savings[:2]},
		},
		cards: []cardSpec{{"4925xxxxxxxx5678", "Ola Visa", "Visa Classic", 2_000_000, cardPurchases[:2]}},
	},
	{number: FjordfiskNumber, name: "Fjordfisk AS", typ: store.CustomerCorporate,
		accounts: []accountSpec{
			{"1203201001", "Driftskonto", "Bedriftskonto", "CACC", "NOK", []txSpec{
				{2, 185_000_00, true, "Faktura 1042", "Havmat AS"}, {15, -42_000_00, true, "Leverandør 77", "Båtservice AS"}}},
			{"1203201002", "Skattetrekkskonto", "Skattetrekkskonto", "SVGS", "NOK", []txSpec{
				{10, 64_000_00, true, "Skattetrekk oktober", ""}}},
		},
	},
	{number: BakeriNumber, name: "Bergen Bakeri AS", typ: store.CustomerCorporate,
		accounts: []accountSpec{
			{"1203202003", "Driftskonto", "Bedriftskonto", "CACC", "NOK", []txSpec{
				{4, 23_450_00, true, "Kortomsetning", "Nets"}, {8, -9_800_00, true, "Mel og gjær", "Møllerens AS"}}},
			{"1203202002", "Valutakonto EUR", "Valutakonto", "CACC", "EUR", []txSpec{
				{30, 5_000_00, true, "Export invoice 17", "Bäckerei GmbH"}}},
		},
	},
}

// Seed writes the fixed data set as the bank's own customers (owner "",
// no sandbox) into a store that has none, atomically: a production-mode
// demonstration or test store. It does nothing when such customers
// exist, so every instance may call it at start; when two race, the
// loser's unique-key conflict means the winner seeded, and is not an
// error.
func Seed(ctx context.Context, st Store, now time.Time) error {
	err := st.Atomically(ctx, func(tx store.Store) error {
		existing, err := tx.ListCustomers(ctx, "")
		if err != nil || len(existing) > 0 {
			return err
		}
		return fill(ctx, tx, "", now)
	})
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	return err
}

// SeedFor gives TPP owner (its organisation identifier) its own sandbox
// with the fixed data set, the first time it is asked: the sandbox is
// claimed and filled in one transaction, once for the whole database
// (any instance), and never again, so a TPP that deleted its customers
// keeps an empty sandbox until it resets it.
func SeedFor(ctx context.Context, st Store, owner string, now time.Time) error {
	if owner == "" {
		return errors.New("sandbox: a sandbox belongs to a TPP")
	}
	return st.Atomically(ctx, func(tx store.Store) error {
		created, err := tx.ClaimSandbox(ctx, owner)
		if err != nil || !created {
			return err
		}
		return fill(ctx, tx, owner, now)
	})
}

// Reset replaces what TPP owner's sandbox holds with the fixed data set in
// one transaction: its customers, accounts and what hangs off them, made
// by hand or not, and everything the TPP made are gone, and no reader sees
// a half-reset sandbox. Other TPPs' sandboxes are untouched. ResetNotice
// says what that ends.
func Reset(ctx context.Context, st Store, owner string, now time.Time) error {
	return st.Atomically(ctx, func(tx store.Store) error {
		if _, err := tx.ClaimSandbox(ctx, owner); err != nil {
			return err
		}
		if err := tx.DeleteSandbox(ctx, owner); err != nil {
			return err
		}
		return fill(ctx, tx, owner, now)
	})
}

// ResetNotice tells the TPP that asked for a Reset what it ended, in its
// own sandbox: everything store.DeleteSandbox deletes, in the terms the
// TPP meets it in. What a TPP observes of it (the answers to ids from
// before) is tested through the initialize operation (backend
// TestInitializeInvalidates).
const ResetNotice = "Your sandbox was reset to its fixed data set; other TPPs' sandboxes are untouched. " +
	"Gone from yours: every customer, account, card account, transaction and agreement, and every consent, PSU-ID, PSU-Corporate-ID, " +
	"TPP session, SCA flow, payment and signing basket made before. " +
	"Ids from before are unknown: a PSU-ID gets 401 CONSENT_INVALID with a new scaRedirect, and the PSU gets a new PSU-ID at its next SCA; " +
	"consents, payments, baskets and accounts answer 404, and so do the SCA links of their flows; " +
	"a 401's sealed scaRedirect still opens a fresh flow until it expires. " +
	"Customer numbers and account numbers are the data set's again. Your TPP contact addresses are kept."

// fill writes the data set into owner's sandbox ("": the bank's own).
func fill(ctx context.Context, st store.Store, owner string, now time.Time) error {
	ids := map[string]string{}        // customer number -> id
	accountIDs := map[string]string{} // BBAN prefix -> id
	for _, cs := range customers {
		c := &store.Customer{Owner: owner, Number: cs.number, Name: cs.name, Type: cs.typ}
		if err := st.CreateCustomer(ctx, c); err != nil {
			return fmt.Errorf("sandbox: customer %s: %w", cs.number, err)
		}
		ids[cs.number] = c.ID
		for _, as := range cs.accounts {
			bban, err := bankaccount.CompleteBBAN(as.prefix)
			if err != nil {
				return fmt.Errorf("sandbox: account %s: %w", as.prefix, err)
			}
			a := &store.Account{CustomerID: c.ID, Kind: store.KindAccount, Name: as.name, Product: as.product,
				CashAccountType: as.cashType, Currency: as.currency, BBAN: bban, IBAN: bankaccount.IBAN("NO", bban), Status: "enabled"}
			if err := st.CreateAccount(ctx, a); err != nil {
				return fmt.Errorf("sandbox: account %s: %w", bban, err)
			}
			accountIDs[as.prefix] = a.ID
			if err := addHistory(ctx, st, a, as.txs, now, false); err != nil {
				return err
			}
		}
		for _, cd := range cs.cards {
			a := &store.Account{CustomerID: c.ID, Kind: store.KindCardAccount, Name: cd.name, Product: cd.product,
				CashAccountType: "CARD", Currency: "NOK", MaskedPAN: cd.maskedPAN, CreditLimit: cd.limit, Status: "enabled"}
			if err := st.CreateAccount(ctx, a); err != nil {
				return fmt.Errorf("sandbox: card account %s: %w", cd.maskedPAN, err)
			}
			if err := addHistory(ctx, st, a, cd.txs, now, true); err != nil {
				return err
			}
		}
	}
	agreements := []store.Agreement{
		{OwnerID: ids[FjordfiskNumber], Name: "Fjordfisk AS", Engagements: []store.Engagement{
			{CustomerID: ids[KariNumber], AccountID: accountIDs["1203201001"], Roles: []string{"VIEW", "REGISTER"}},
			{CustomerID: ids[KariNumber], AccountID: accountIDs["1203201002"], Roles: []string{"VIEW", "REGISTER"}},
		}},
		{OwnerID: ids[BakeriNumber], Name: "Bergen Bakeri AS", Engagements: []store.Engagement{
			{CustomerID: ids[OlaNumber], AccountID: accountIDs["1203202003"], Roles: []string{"VIEW", "REGISTER"}},
			{CustomerID: ids[OlaNumber], AccountID: accountIDs["1203202002"], Roles: []string{"VIEW"}},
		}},
	}
	for i := range agreements {
		if err := st.CreateAgreement(ctx, &agreements[i]); err != nil {
			return fmt.Errorf("sandbox: agreement %s: %w", agreements[i].Name, err)
		}
	}
	return nil
}

// addHistory books txs on a and sets its balances from them, so the booked
// balance always matches the booked transaction list.
func addHistory(ctx context.Context, st store.Store, a *store.Account, specs []txSpec, now time.Time, card bool) error {
	var booked, pending int64
	txs := make([]store.Transaction, 0, len(specs))
	for _, s := range specs {
		day := civildate.Today(now.AddDate(0, 0, -s.daysAgo))
		details := map[string]any{
			"remittanceInformationUnstructured":      s.text,
			"remittanceInformationUnstructuredArray": []string{s.text},
		}
		if s.other != "" {
			if s.amount < 0 {
				details["creditorName"] = s.other
				// Bills are paid with a KID reference, shown both as the
				// structured array and the bank's proprietary field.
				kid := kidFor(s.daysAgo)
				details["remittanceInformationStructuredArray"] = []map[string]string{{"reference": kid, "referenceType": "SCOR"}}
				details["additionalInformationProprietary1"] = "KID " + kid
			} else {
				details["debtorName"] = s.other
			}
		}
		if card {
			details = map[string]any{
				"transactionDate":                day,
				"originalAmount":                 map[string]string{"currency": a.Currency, "amount": money.Format(s.amount, a.Currency)},
				"merchantCategoryCode":           "5411",
				"cardAcceptorId":                 "ACQ-" + s.other,
				"cardAcceptorAddress":            map[string]string{"city": "Oslo", "country": "NO"},
				"maskedPan":                      a.MaskedPAN,
				"transactionDetails":             s.text,
				"invoiced":                       s.booked,
				"proprietaryBankTransactionCode": "PURCHASE",
			}
		}
		raw, _ := json.Marshal(details)
		t := store.Transaction{Booked: s.booked, Amount: s.amount, Currency: a.Currency, ValueDate: day, Details: raw}
		if s.booked {
			t.BookingDate = day
			booked += s.amount
		} else {
			pending += s.amount
		}
		txs = append(txs, t)
	}
	if len(txs) > 0 {
		if err := st.AddTransactions(ctx, a.ID, txs); err != nil {
			return fmt.Errorf("sandbox: transactions of %s: %w", a.Name, err)
		}
	}
	today := civildate.Today(now)
	return st.SetBalances(ctx, a.ID, []store.Balance{
		{Type: "closingBooked", Amount: booked, Currency: a.Currency, ReferenceDate: today, LastChange: now},
		{Type: "expected", Amount: booked + pending, Currency: a.Currency, ReferenceDate: today, LastChange: now},
	})
}

// kidFor returns a fixed KID (Norwegian payment reference) with a valid
// MOD10 check digit for a seed transaction.
func kidFor(n int) string {
	base := fmt.Sprintf("%08d", 10000000+n*7919)
	sum := 0
	for i := len(base) - 1; i >= 0; i-- {
		d := int(base[i] - '0')
		if (len(base)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return base + string(rune('0'+(10-sum%10)%10))
}
