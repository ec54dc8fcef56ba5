package integration

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// perImport makes Per, whom the bank's identity provider knows and obgw
// did not, a customer with an account and two booked transactions; its
// closingBooked is closing (whole NOK).
func perImport(closing string) string {
	return `{"customers":[{"customerNumber":"` + perNumber + `","name":"Per Utenbank","type":"private"}],
"accounts":[{"customerNumber":"` + perNumber + `","accountName":"Pers konto","bban":"86011117947","currency":"NOK","product":"Brukskonto",
  "balances":[{"balanceType":"closingBooked","balanceAmount":{"amount":` + closing + `,"currency":"NOK"}}]}],
"transactions":[{"bban":"86011117947","booked":[
  {"amount":-200,"currency":"NOK","bookingDate":"2026-11-01","entryReference":"PER-1","remittanceInformationUnstructured":"Husleie"},
  {"amount":1500,"currency":"NOK","bookingDate":"2026-11-02","entryReference":"PER-2","debtorName":"Arbeidsgiver AS"}]}]}`
}

// TestImportServesTheBanksData (issue 32, 4): in production with obgw's
// own backend, the operator imports the bank's data while obgw serves
// (`obgw import`); the PSU the bank's provider logs in then consents to
// the imported account, and the TPP reads its balance and transactions.
// The same document again changes nothing; the admin endpoint's import
// of a new balance is served at once; a broken document is refused naming
// the field, and changes nothing.
func TestImportServesTheBanksData(t *testing.T) {
	d := startWithIdP(t, "sqlite", false)
	run := func(doc string, args ...string) (string, error) {
		cmd := exec.Command(binary, append([]string{"import"}, args...)...)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), d.env...)
		cmd.Stdin = strings.NewReader(doc)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(perImport("5000"), "-")
	if err != nil || !strings.Contains(out, `"booked": 2`) {
		t.Fatalf("obgw import: %v\n%s", err, out)
	}

	// Per consents to the account, and the TPP reads it.
	cb := newTLSCallback(t)
	s := &tppSession{t: t, g: d.g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	a := newPSUAgent(t, d)
	pageURL, authURL := a.startLogin(d.startFlow(t, s, tlsCallbackURI(cb), nil, false))
	if resp, page := a.logIn(authURL, perNumber); resp.StatusCode != http.StatusOK || !strings.Contains(page, "logged in") {
		t.Fatalf("Per's login after the import: %d %s", resp.StatusCode, page)
	}
	resp, _ := a.confirmPrivate(pageURL)
	back, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || back.Query().Get("psu-id") == "" {
		t.Fatalf("Per's consent: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	s.psuID = back.Query().Get("psu-id")
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
			IBAN       string `json:"iban"`
		} `json:"accounts"`
	}
	got := s.call("GET", "/v1/accounts", true)
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) != 1 || list.Accounts[0].IBAN != "NO9386011117947" {
		t.Fatalf("Per's accounts: %d %s", got.status, got.body)
	}
	id := list.Accounts[0].ResourceID
	closing := func() string {
		got := s.call("GET", "/v1/accounts/"+id+"/balances", true)
		var b struct {
			Balances []struct {
				BalanceType   string `json:"balanceType"`
				BalanceAmount struct {
					Amount string `json:"amount"`
				} `json:"balanceAmount"`
			} `json:"balances"`
		}
		if got.status != 200 || json.Unmarshal(got.body, &b) != nil {
			t.Fatalf("balances: %d %s", got.status, got.body)
		}
		for _, x := range b.Balances {
			if x.BalanceType == "closingBooked" {
				return x.BalanceAmount.Amount
			}
		}
		t.Fatalf("no closingBooked: %s", got.body)
		return ""
	}
	if c := closing(); c != "5000.00" {
		t.Fatalf("closingBooked %s after the import, want 5000.00", c)
	}
	txs := s.call("GET", "/v1/accounts/"+id+"/transactions?bookingStatus=booked", true)
	if txs.status != 200 || !strings.Contains(string(txs.body), `"entryReference":"PER-1"`) || !strings.Contains(string(txs.body), `"entryReference":"PER-2"`) ||
		!strings.Contains(string(txs.body), "Opening balance") {
		t.Fatalf("Per's transactions: %d %s", txs.status, txs.body)
	}

	// Again: nothing changes.
	if out, err := run(perImport("5000"), "-"); err != nil || !strings.Contains(out, `"alreadyBooked": 2`) || !strings.Contains(out, `"booked": 0`) {
		t.Fatalf("the same import again: %v\n%s", err, out)
	}
	if c := closing(); c != "5000.00" {
		t.Fatalf("closingBooked %s after the same import again", c)
	}

	// Through the admin endpoint, while serving.
	resp, err = http.Post("http://"+d.g.admin+"/obgw/import", "application/json", bytes.NewReader([]byte(perImport("4200"))))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Accounts struct{ Updated int } `json:"accounts"`
	}
	if json.NewDecoder(resp.Body).Decode(&report) != nil || resp.StatusCode != 200 || report.Accounts.Updated != 1 {
		t.Fatalf("POST /obgw/import: %d %+v", resp.StatusCode, report)
	}
	resp.Body.Close()
	if c := closing(); c != "4200.00" {
		t.Fatalf("closingBooked %s after the admin import, want 4200.00", c)
	}

	// A broken document: refused, naming the field; nothing changes.
	broken := strings.Replace(perImport("1"), `,"entryReference":"PER-2"`, "", 1)
	if out, err := run(broken, "-"); err == nil || !strings.Contains(out, "$.transactions[0].booked[1].entryReference: is required") {
		t.Fatalf("a document without an entryReference: %v\n%s", err, out)
	}
	resp, err = http.Post("http://"+d.g.admin+"/obgw/import", "application/json", strings.NewReader(broken))
	if err != nil {
		t.Fatal(err)
	}
	var refusal struct {
		TPPMessages []struct{ Path, Text string } `json:"tppMessages"`
	}
	if json.NewDecoder(resp.Body).Decode(&refusal) != nil || resp.StatusCode != 400 || len(refusal.TPPMessages) == 0 ||
		refusal.TPPMessages[0].Path != "$.transactions[0].booked[1].entryReference" {
		t.Fatalf("POST /obgw/import of a broken document: %d %+v", resp.StatusCode, refusal)
	}
	resp.Body.Close()
	if c := closing(); c != "4200.00" {
		t.Fatalf("closingBooked %s after a refused import", c)
	}
}
