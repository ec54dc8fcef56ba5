package backend

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/ledger"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/sandbox/mockdata"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/strictjson"
	"github.com/obgw/obgw/bgerror"
)

// MaxImportBytes bounds one import document; a bank with more data splits
// it (an import is idempotent, and a later document may name the
// customers and accounts an earlier one made).
const MaxImportBytes = 256 << 20

// An import is the operator's way to put the bank's own data, the data
// production serves, into the in-process backend's store: `obgw import`
// and POST /obgw/import on the admin endpoint (caddymodule). The document
// is one JSON object of five optional arrays, each item in the shape of
// the sandbox's mock-data bodies and validated by the same rules
// (mockdata):
//
//	customers     POST /v1/sandbox/customers bodies
//	accounts      POST /v1/sandbox/accounts bodies (balances included)
//	cardAccounts  POST /v1/sandbox/card-accounts bodies
//	agreements    POST /v1/sandbox/agreements bodies
//	transactions  {"iban"|"bban": account, or "maskedPan" and
//	              "customerNumber": card account, "booked": [the POST
//	              …/transactions body's items]}
//
// It is idempotent: a customer is the same by customer number, an account
// by IBAN or BBAN, a card account by its owner and masked PAN, an
// agreement by its owner and name, and each is created, or updated to
// what the document says (what identifies it, its owner and its currency
// cannot change); a booked transaction is the same by its entryReference
// (account) or cardTransactionId (card account), which an import
// requires, and one already booked is skipped. Balances are set after the
// transactions (importBalances): a booked balance sent is the balance
// after the document's transactions, the booked balance the sum of the
// booked transactions (ledger.SetBalances).
// The whole document is applied in one transaction, so requests served
// meanwhile see all of it or none, and a document with one broken rule
// changes nothing.

// ImportReport says what an import changed.
type ImportReport struct {
	Customers    ImportCount `json:"customers"`
	Accounts     ImportCount `json:"accounts"`
	CardAccounts ImportCount `json:"cardAccounts"`
	Agreements   ImportCount `json:"agreements"`
	Transactions struct {
		// Booked were new; AlreadyBooked were skipped.
		Booked        int `json:"booked"`
		AlreadyBooked int `json:"alreadyBooked"`
	} `json:"transactions"`
}

// ImportCount counts the items of one kind.
type ImportCount struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// importDoc is the document's arrays, each item still raw.
type importDoc struct {
	customers, accounts, cardAccounts, agreements, transactions []json.RawMessage
}

// importTransactions is one item of the transactions array.
type importTransactions struct {
	IBAN           string            `json:"iban"`
	BBAN           string            `json:"bban"`
	MaskedPAN      string            `json:"maskedPan"`
	CustomerNumber string            `json:"customerNumber"`
	Booked         []json.RawMessage `json:"booked"`
}

// Import applies an import document to st, as the bank's own data, in one
// transaction. A document that breaks a rule is a *bgerror.Error naming
// every field at fault (at most strictjson's bound) and changes nothing;
// another error is the store's.
func Import(ctx context.Context, st store.Store, doc []byte, now time.Time) (*ImportReport, error) {
	d, e := parseImport(doc)
	if e != nil {
		return nil, e
	}
	var report *ImportReport
	err := st.Atomically(ctx, func(tx store.Store) error {
		im := &importer{ctx: ctx, st: tx, now: now, report: new(ImportReport)}
		if err := im.apply(d); err != nil {
			return err
		}
		report = im.report
		return nil
	})
	if err != nil {
		return nil, err
	}
	return report, nil
}

// parseImport splits the document into its arrays: an object whose
// members are those five, each at most once.
func parseImport(doc []byte) (*importDoc, *bgerror.Error) {
	if len(doc) > MaxImportBytes {
		return nil, bgerror.Format("$", "the document is larger than "+strconv.Itoa(MaxImportBytes>>20)+" MiB; split it (an import is idempotent)")
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bgerror.Format("$", "must be a JSON object with the arrays customers, accounts, cardAccounts, agreements and transactions")
	}
	d := &importDoc{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bgerror.Format("$", "is not valid JSON: "+err.Error())
		}
		name, _ := t.(string)
		var into *[]json.RawMessage
		switch name {
		case "customers":
			into = &d.customers
		case "accounts":
			into = &d.accounts
		case "cardAccounts":
			into = &d.cardAccounts
		case "agreements":
			into = &d.agreements
		case "transactions":
			into = &d.transactions
		default:
			return nil, bgerror.Format("$."+name, "is not a member of an import document: customers, accounts, cardAccounts, agreements and transactions are")
		}
		if seen[name] {
			return nil, bgerror.Format("$."+name, "appears twice; send each array once")
		}
		seen[name] = true
		if err := dec.Decode(into); err != nil {
			return nil, bgerror.Format("$."+name, "must be an array of objects: "+err.Error())
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, bgerror.Format("$", "is not valid JSON: "+err.Error())
	}
	if dec.More() {
		return nil, bgerror.Format("$", "holds more than one JSON value")
	}
	return d, nil
}

// importer applies a document inside one transaction.
type importer struct {
	ctx      context.Context
	st       store.Store
	now      time.Time
	report   *ImportReport
	balances []importBalances // of the document's accounts, in its order
}

// rebase moves field errors of an item's own body ("$…") under path.
func rebase(errs []strictjson.FieldError, path string) *bgerror.Error {
	for i := range errs {
		errs[i].Path = path + strings.TrimPrefix(errs[i].Path, "$")
	}
	return respond.FieldErrors(errs)
}

func item(section string, i int) string { return "$." + section + "[" + strconv.Itoa(i) + "]" }

func (im *importer) apply(d *importDoc) error {
	for i, raw := range d.customers {
		if err := im.customer(raw, item("customers", i)); err != nil {
			return err
		}
	}
	for i, raw := range d.accounts {
		if err := im.account(store.KindAccount, raw, item("accounts", i), &im.report.Accounts); err != nil {
			return err
		}
	}
	for i, raw := range d.cardAccounts {
		if err := im.account(store.KindCardAccount, raw, item("cardAccounts", i), &im.report.CardAccounts); err != nil {
			return err
		}
	}
	for i, raw := range d.agreements {
		if err := im.agreement(raw, item("agreements", i)); err != nil {
			return err
		}
	}
	for i, raw := range d.transactions {
		if err := im.transactions(raw, item("transactions", i)); err != nil {
			return err
		}
	}
	return im.settleBalances()
}

// customerByNumber finds one of the bank's customers named at path.
func (im *importer) customerByNumber(number, path string) (*store.Customer, error) {
	c, err := im.st.GetCustomerByNumber(im.ctx, "", number)
	if errors.Is(err, store.ErrNotFound) {
		return nil, bgerror.Format(path, "no customer has this customer number; import the customer first (customers come before the other arrays)")
	}
	return c, err
}

func (im *importer) customer(raw json.RawMessage, path string) error {
	in, errs := mockdata.ParseCustomer(raw, im.now)
	if len(errs) > 0 {
		return rebase(errs, path)
	}
	c, err := im.st.GetCustomerByNumber(im.ctx, "", in.Number)
	switch {
	case errors.Is(err, store.ErrNotFound):
		im.report.Customers.Created++
		return im.st.CreateCustomer(im.ctx, &store.Customer{Number: in.Number, Name: in.Name, Type: store.CustomerType(in.Type)})
	case err != nil:
		return err
	case c.Name == in.Name && c.Type == store.CustomerType(in.Type):
		im.report.Customers.Unchanged++
		return nil
	}
	c.Name, c.Type = in.Name, store.CustomerType(in.Type)
	im.report.Customers.Updated++
	return im.st.UpdateCustomer(im.ctx, c)
}

func (im *importer) account(kind store.AccountKind, raw json.RawMessage, path string, count *ImportCount) error {
	a, ownerNumber, balances, e := mockdata.AccountOf(kind, raw, im.now)
	if e != nil {
		return rebaseError(e, path)
	}
	owner, err := im.customerByNumber(ownerNumber, path+".customerNumber")
	if err != nil {
		return err
	}
	a.CustomerID = owner.ID
	old, err := im.existingAccount(kind, a, owner)
	if err != nil {
		return err
	}
	if old == nil {
		count.Created++
		if err := im.st.CreateAccount(im.ctx, a); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return bgerror.Format(path+".iban", "another customer's account has this IBAN or BBAN")
			}
			return err
		}
		im.balances = append(im.balances, importBalances{a: a, balances: balances, opening: true})
		return nil
	}
	switch {
	case old.CustomerID != owner.ID:
		return bgerror.Format(path+".customerNumber", "names another customer than the account's owner; the owner cannot change")
	case old.Currency != a.Currency:
		return bgerror.Format(path+".currency", "cannot change: the account's transactions are in "+old.Currency)
	case kind == store.KindAccount && (old.IBAN != a.IBAN || old.BBAN != a.BBAN):
		return bgerror.Format(path+".iban", "names another account than its bban: the account's numbers cannot change")
	}
	if err := im.st.LockAccounts(im.ctx, old.ID); err != nil {
		return err
	}
	changed := old.Name != a.Name || old.Product != a.Product || old.CashAccountType != a.CashAccountType || old.CreditLimit != a.CreditLimit ||
		(kind == store.KindCardAccount && (!strings.EqualFold(old.Status, cmp.Or(a.Status, "enabled")) || !sameJSON(old.Extra, a.Extra)))
	if changed {
		old.Name, old.Product, old.CashAccountType, old.CreditLimit = a.Name, a.Product, a.CashAccountType, a.CreditLimit
		if kind == store.KindCardAccount {
			old.Status, old.Extra = a.Status, a.Extra
		}
		if err := im.st.UpdateAccount(im.ctx, old); err != nil {
			return err
		}
	}
	im.balances = append(im.balances, importBalances{a: old, balances: balances, changed: changed, count: count})
	return nil
}

// importBalances is an account's balances, set once the document's
// transactions are booked: a booked balance the document sends is the
// balance after them, and only the difference to them is booked as an
// opening (new account) or adjusting transaction, so that importing the
// document again books nothing.
type importBalances struct {
	a        *store.Account
	balances []store.Balance
	opening  bool
	changed  bool         // the account's own fields were updated
	count    *ImportCount // of an existing account: updated or unchanged
}

// settleBalances sets the balances of the document's accounts.
func (im *importer) settleBalances() error {
	for _, b := range im.balances {
		if b.opening {
			if err := ledger.SetBalances(im.ctx, im.st, b.a, b.balances, true, im.now); err != nil {
				return err
			}
			continue
		}
		changed := b.changed
		if len(b.balances) > 0 {
			before, err := im.st.ListBalances(im.ctx, b.a.ID)
			if err != nil {
				return err
			}
			if err := ledger.SetBalances(im.ctx, im.st, b.a, b.balances, false, im.now); err != nil {
				return err
			}
			after, err := im.st.ListBalances(im.ctx, b.a.ID)
			if err != nil {
				return err
			}
			changed = changed || !sameBalances(before, after)
		}
		if changed {
			b.count.Updated++
		} else {
			b.count.Unchanged++
		}
	}
	return nil
}

// sameJSON reports whether a and b are the same JSON value (a database
// may keep an object's members in another order).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// sameBalances compares balances by what a TPP reads of them, not when
// they were set.
func sameBalances(a, b []store.Balance) bool {
	return slices.EqualFunc(a, b, func(x, y store.Balance) bool {
		return x.Type == y.Type && x.Amount == y.Amount && x.Currency == y.Currency
	})
}

// existingAccount is the account a already is: by its numbers, or a card
// account of owner by its masked PAN; nil when there is none.
func (im *importer) existingAccount(kind store.AccountKind, a *store.Account, owner *store.Customer) (*store.Account, error) {
	if kind == store.KindAccount {
		old, err := im.st.GetAccountByNumber(im.ctx, "", a.IBAN, a.BBAN)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return old, err
	}
	return im.cardAccount(owner, a.MaskedPAN)
}

// cardAccount is owner's card account with maskedPAN, or nil.
func (im *importer) cardAccount(owner *store.Customer, maskedPAN string) (*store.Account, error) {
	accs, err := im.st.ListCustomerAccounts(im.ctx, owner.ID)
	if err != nil {
		return nil, err
	}
	for i := range accs {
		if accs[i].Kind == store.KindCardAccount && accs[i].MaskedPAN == maskedPAN {
			return &accs[i], nil
		}
	}
	return nil, nil
}

// rebaseError moves a mock-data body's error paths under path.
func rebaseError(e *bgerror.Error, path string) *bgerror.Error {
	if e.Path != "" {
		e.Path = path + strings.TrimPrefix(e.Path, "$")
	}
	for i := range e.More {
		if e.More[i].Path != "" {
			e.More[i].Path = path + strings.TrimPrefix(e.More[i].Path, "$")
		}
	}
	return e
}

func (im *importer) agreement(raw json.RawMessage, path string) error {
	in, errs := mockdata.ParseAgreement(raw, im.now)
	if len(errs) > 0 {
		return rebase(errs, path)
	}
	owner, err := im.customerByNumber(in.Owner, path+".owner")
	if err != nil {
		return err
	}
	if owner.Type != store.CustomerCorporate {
		return bgerror.Format(path+".owner", "the owner must be a corporate customer")
	}
	owned, err := im.st.ListCustomerAccounts(im.ctx, owner.ID)
	if err != nil {
		return err
	}
	var es []store.Engagement
	for i, en := range in.Engagements {
		at := path + ".engagements[" + strconv.Itoa(i) + "]"
		psu, err := im.customerByNumber(en.Customer, at+".customer")
		if err != nil {
			return err
		}
		var accountID string
		for _, a := range owned {
			if (en.Account.IBAN != "" && a.IBAN == en.Account.IBAN) || (en.Account.BBAN != "" && a.BBAN == en.Account.BBAN) {
				accountID = a.ID
			}
		}
		if accountID == "" {
			return bgerror.Format(at+".account", "must name one of the owner's accounts")
		}
		es = append(es, store.Engagement{CustomerID: psu.ID, AccountID: accountID, Roles: en.Roles})
	}
	old, err := im.st.AgreementByName(im.ctx, owner.ID, in.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		im.report.Agreements.Created++
		err = im.st.CreateAgreement(im.ctx, &store.Agreement{OwnerID: owner.ID, Name: in.Name, Engagements: es})
	case err != nil:
	case slices.EqualFunc(old.Engagements, es, func(x, y store.Engagement) bool {
		return x.CustomerID == y.CustomerID && x.AccountID == y.AccountID && slices.Equal(x.Roles, y.Roles)
	}):
		im.report.Agreements.Unchanged++
	default:
		im.report.Agreements.Updated++
		err = im.st.SetEngagements(im.ctx, old.ID, es)
	}
	if errors.Is(err, store.ErrConflict) {
		return bgerror.Format(path+".engagements", "engages one customer twice on one account; send each customer's roles on an account once")
	}
	return err
}

// transactions books one account's or card account's transactions that
// are not booked yet, in chunks of the mock-data bounds.
func (im *importer) transactions(raw json.RawMessage, path string) error {
	var in importTransactions
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return bgerror.Format(path, "must be an object of iban or bban, or maskedPan and customerNumber, and booked: "+err.Error())
	}
	a, e := im.transactionsAccount(&in, path)
	if e != nil {
		return e
	}
	if len(in.Booked) == 0 {
		return bgerror.Format(path+".booked", "must hold at least one transaction")
	}
	if err := im.st.LockAccounts(im.ctx, a.ID); err != nil {
		return err
	}
	known, err := im.bookedKeys(a)
	if err != nil {
		return err
	}
	const chunk = mockdata.MaxAccountTransactions
	for from := 0; from < len(in.Booked); from += chunk {
		part := in.Booked[from:min(from+chunk, len(in.Booked))]
		body, _ := json.Marshal(part)
		keys, txs, e := im.parseBooked(a, body, path+".booked", from)
		if e != nil {
			return e
		}
		var fresh []store.Transaction
		for i, k := range keys {
			if known[k] {
				im.report.Transactions.AlreadyBooked++
				continue
			}
			known[k] = true
			fresh = append(fresh, txs[i])
		}
		if len(fresh) == 0 {
			continue
		}
		if err := im.st.AddTransactions(im.ctx, a.ID, fresh); err != nil {
			return err
		}
		if err := ledger.Move(im.ctx, im.st, a, fresh, im.now); err != nil {
			return err
		}
		im.report.Transactions.Booked += len(fresh)
	}
	return nil
}

// transactionsAccount is the account a transactions item names.
func (im *importer) transactionsAccount(in *importTransactions, path string) (*store.Account, *bgerror.Error) {
	switch {
	case in.MaskedPAN != "" && (in.IBAN != "" || in.BBAN != ""):
		return nil, bgerror.Format(path, "names an account (iban, bban) and a card account (maskedPan): name one")
	case in.MaskedPAN != "":
		if in.CustomerNumber == "" {
			return nil, bgerror.Format(path+".customerNumber", "is required with maskedPan: the card account is its owner's")
		}
		owner, err := im.customerByNumber(in.CustomerNumber, path+".customerNumber")
		if err != nil {
			return nil, asFormat(err, path)
		}
		a, err := im.cardAccount(owner, in.MaskedPAN)
		if err != nil || a == nil {
			return nil, asFormat(err, path+".maskedPan")
		}
		return a, nil
	case in.IBAN != "" || in.BBAN != "":
		if in.CustomerNumber != "" {
			return nil, bgerror.Format(path+".customerNumber", "is for a card account; an account is named by iban or bban alone")
		}
		a, err := im.st.GetAccountByNumber(im.ctx, "", in.IBAN, in.BBAN)
		if err != nil {
			return nil, asFormat(err, path+".iban")
		}
		return a, nil
	}
	return nil, bgerror.Format(path, "must name the account (iban or bban) or the card account (maskedPan and customerNumber)")
}

// asFormat is a lookup's failure at path: a rule broken, or the store's
// error (wrapped so that Import returns it as a store error).
func asFormat(err error, path string) *bgerror.Error {
	var e *bgerror.Error
	switch {
	case errors.As(err, &e):
		return e
	case err == nil || errors.Is(err, store.ErrNotFound):
		return bgerror.Format(path, "names no account of the bank; import it first (accounts and cardAccounts come before transactions)")
	}
	return bgerror.New(bgerror.CodeServiceUnavailable, "the store could not be read: "+err.Error())
}

// parseBooked validates one chunk of booked transactions of account a
// (from: the chunk's first index) and returns each one's key and store
// form.
func (im *importer) parseBooked(a *store.Account, body []byte, path string, from int) ([]string, []store.Transaction, *bgerror.Error) {
	var keys []string
	var txs []store.Transaction
	at := func(i int) string { return path + "[" + strconv.Itoa(from+i) + "]" }
	if a.Kind == store.KindCardAccount {
		in, errs := mockdata.ParseCardTransactions(body, im.now)
		if len(errs) > 0 {
			return nil, nil, rebaseChunk(errs, path, from)
		}
		for i, t := range in {
			if t.MaskedPAN != "" && t.MaskedPAN != a.MaskedPAN {
				return nil, nil, bgerror.Format(at(i)+".maskedPan", "is another card's: a card account's transactions are its own")
			}
			t.MaskedPAN = a.MaskedPAN
			details, _ := json.Marshal(mockdata.CardTransactionDetails(&t))
			keys = append(keys, t.CardTransactionID)
			txs = append(txs, store.Transaction{Booked: true, Amount: t.TransactionAmount.Minor, Currency: t.TransactionAmount.Currency,
				BookingDate: t.BookingDate, ValueDate: t.TransactionDate, Details: details})
		}
	} else {
		in, errs := mockdata.ParseAccountTransactions(body, im.now)
		if len(errs) > 0 {
			return nil, nil, rebaseChunk(errs, path, from)
		}
		for i, t := range in {
			if t.EntryReference == "" {
				return nil, nil, bgerror.Format(at(i)+".entryReference", "is required in an import: it is what makes a transaction imported twice one transaction")
			}
			if t.DebtorAccount != nil && t.DebtorAccount.IBAN != a.IBAN && t.DebtorAccount.BBAN != a.BBAN {
				return nil, nil, bgerror.Format(at(i)+".debtorAccount", "another account is the debtor: only transactions of this account can be booked on it")
			}
			details, _ := json.Marshal(mockdata.AccountTransactionDetails(&t))
			keys = append(keys, t.EntryReference)
			txs = append(txs, store.Transaction{Booked: true, Amount: t.Amount.Minor, Currency: t.Amount.Currency,
				BookingDate: t.BookingDate, ValueDate: t.ValueDate, Details: details})
		}
	}
	for i, t := range txs {
		if t.Currency != a.Currency {
			return nil, nil, bgerror.Format(at(i), "the amount must be in the account's currency "+a.Currency)
		}
	}
	return keys, txs, nil
}

// rebaseChunk moves a chunk's error paths ("$[i]…") under path, counting
// from the chunk's first index.
func rebaseChunk(errs []strictjson.FieldError, path string, from int) *bgerror.Error {
	for i := range errs {
		rest := strings.TrimPrefix(errs[i].Path, "$")
		if strings.HasPrefix(rest, "[") {
			if end := strings.IndexByte(rest, ']'); end > 0 {
				if n, err := strconv.Atoi(rest[1:end]); err == nil {
					rest = "[" + strconv.Itoa(from+n) + rest[end:]
				}
			}
		}
		errs[i].Path = path + rest
	}
	return respond.FieldErrors(errs)
}

// bookedKeys are the keys of account a's booked transactions: the
// entryReference of an account's, the card transaction id of a card
// account's.
func (im *importer) bookedKeys(a *store.Account) (map[string]bool, error) {
	details, err := im.st.BookedDetails(im.ctx, a.ID)
	if err != nil {
		return nil, err
	}
	member := "entryReference"
	if a.Kind == store.KindCardAccount {
		member = "tppTransactionId"
	}
	known := map[string]bool{}
	for _, raw := range details {
		var d map[string]any
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		if k, ok := d[member].(string); ok && k != "" {
			known[k] = true
		}
	}
	return known, nil
}
