package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppclient"
)

// psuIPAddress is the PSU's address on every call of the benchmark: the
// PSU is present, so the 4-a-day PSU-not-present limit does not apply.
const psuIPAddress = "192.0.2.10"

// redirectURI is the TPP-Redirect-URI of the benchmark TPP.
const redirectURI = "https://tpp.example.no/cb"

// setupTransactions prepares a running sandbox gateway for the
// transactions benchmark, through the gateway as a TPP and a PSU would:
// a sandbox customer with one account and -transactions booked
// transactions (mock-data operations), a bank-offered consent, its SCA on
// the mock SCA page, and a check that a page of 200 comes back. It prints
// what the load run needs as KEY=value lines: ACCOUNT_ID, ACCOUNT_IBAN
// (the debtor of the payment benchmark), PSU_ID and TPP_SESSION_ID (this
// dialect finds the consent from PSU-ID and the session; there is no
// Consent-ID header).
func setupTransactions(args []string) error {
	fs := flag.NewFlagSet("setup-transactions", flag.ContinueOnError)
	base := fs.String("base", "https://localhost:8443", "gateway base URL")
	pkiDir := fs.String("pki", "testdata/pki", "test PKI directory")
	tpp := fs.String("tpp", "tpp", "test TPP to sign as")
	number := fs.String("customer", "01019912345", "customer number of the sandbox PSU to create")
	count := fs.Int("transactions", 1000, "booked transactions to put on the account (1 to 1000)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *count < 200 || *count > 1000 {
		return fmt.Errorf("-transactions %d: want 200 to 1000 (a full page of 200; one mock-data call books at most 1000)", *count)
	}
	signer, err := loadSigner(*pkiDir, *tpp)
	if err != nil {
		return err
	}
	roots := testRoots(*pkiDir)
	t := &tppCalls{base: strings.TrimSuffix(*base, "/"), c: tppclient.NewClient(signer, tppclient.NewTLSTransport(roots, nil))}

	if _, err := t.call(http.MethodPost, "/v1/sandbox/customers", nil,
		fmt.Sprintf(`{"customerNumber":%q,"name":"Bench Benchmark","type":"private"}`, *number), http.StatusCreated); err != nil {
		return err
	}
	body, err := t.call(http.MethodPost, "/v1/sandbox/accounts", nil,
		fmt.Sprintf(`{"customerNumber":%q,"accountName":"Brukskonto","bban":"86011117947","currency":"NOK",`+
			`"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":18000,"currency":"NOK"}}]}`, *number), http.StatusCreated)
	if err != nil {
		return err
	}
	var account struct {
		ID   string `json:"id"`
		IBAN string `json:"iban"`
	}
	if err := json.Unmarshal(body, &account); err != nil || account.ID == "" || account.IBAN == "" {
		return fmt.Errorf("create account: no id or iban in %s", body)
	}
	if _, err := t.call(http.MethodPost, "/v1/sandbox/accounts/"+account.ID+"/transactions", nil,
		string(transactionsBody(*count, time.Now())), http.StatusCreated); err != nil {
		return err
	}

	session := uuid.NewString()
	psu := http.Header{"Tpp-Redirect-Uri": {redirectURI}, "Tpp-Session-Id": {session}, "Psu-Ip-Address": {psuIPAddress}}
	body, err = t.call(http.MethodPost, "/v1/bank-offered-consents", psu, "", http.StatusCreated)
	if err != nil {
		return err
	}
	var consent struct {
		ConsentID string `json:"consentId"`
		Links     map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(body, &consent); err != nil || consent.Links["scaRedirect"].Href == "" {
		return fmt.Errorf("create consent: no scaRedirect in %s", body)
	}
	q, err := consentOnSCAPage(t.base, consent.Links["scaRedirect"].Href, roots, *number, account.ID)
	if err != nil {
		return err
	}
	if q.Get("tpp-session-id") != session || q.Get("psu-id") == "" {
		return fmt.Errorf("SCA redirect: want psu-id and tpp-session-id %s, got %v", session, q)
	}
	psu.Set("PSU-ID", q.Get("psu-id"))

	body, err = t.call(http.MethodGet, "/v1/accounts/"+account.ID+"/transactions?bookingStatus=booked&limit=200", psu, "", http.StatusOK)
	if err != nil {
		return err
	}
	var page struct {
		Transactions struct {
			Booked []json.RawMessage          `json:"booked"`
			Links  map[string]json.RawMessage `json:"_links"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return fmt.Errorf("transactions page: %v", err)
	}
	if len(page.Transactions.Booked) != 200 || (*count > 200 && page.Transactions.Links["next"] == nil) {
		return fmt.Errorf("transactions page: want 200 booked entries and a next link, got %d booked, links %v", len(page.Transactions.Booked), page.Transactions.Links)
	}
	fmt.Printf("ACCOUNT_ID=%s\nACCOUNT_IBAN=%s\nPSU_ID=%s\nTPP_SESSION_ID=%s\n", account.ID, account.IBAN, q.Get("psu-id"), session)
	return nil
}

// tppCalls sends signed requests to the gateway as the test TPP.
type tppCalls struct {
	base string
	c    *tppclient.Client
}

// call sends one signed request and returns the body of an answer with
// status want, or an error naming the call, the status and the body.
func (t *tppCalls) call(method, path string, headers http.Header, body string, want int) ([]byte, error) {
	resp, err := t.c.Do(method, t.base+path, headers, []byte(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: want %d, got %s: %s", method, path, want, resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}

// transactionsBody is a mock-data body of n booked transactions, debits
// and credits alternating, one to three a day going back from yesterday
// (UTC yesterday is before today in Norway, as the mock data demands).
func transactionsBody(n int, now time.Time) []byte {
	type tx struct {
		Amount       int    `json:"amount"`
		Currency     string `json:"currency"`
		BookingDate  string `json:"bookingDate"`
		Remittance   string `json:"remittanceInformationUnstructured"`
		CreditorName string `json:"creditorName,omitempty"`
		DebtorName   string `json:"debtorName,omitempty"`
	}
	txs := make([]tx, n)
	for i := range txs {
		t := tx{Currency: "NOK", BookingDate: now.UTC().AddDate(0, 0, -1-i/3).Format(time.DateOnly),
			Remittance: fmt.Sprintf("Benchmark transaction %d", i+1)}
		if i%2 == 0 {
			t.Amount, t.CreditorName = -(100 + i%900), "Butikken AS"
		} else {
			t.Amount, t.DebtorName = 120+i%900, "Arbeidsgiver AS"
		}
		txs[i] = t
	}
	b, _ := json.Marshal(txs)
	return b
}
