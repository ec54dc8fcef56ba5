package resource

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

// TestTransactionSplicesDetails: the stored details follow the owned
// fields, never repeating one.
func TestTransactionSplicesDetails(t *testing.T) {
	tx := &store.Transaction{ID: "enc!!t1", Booked: true, Amount: -12345, Currency: "NOK", BookingDate: "2026-11-01", ValueDate: "2026-11-02",
		Details: json.RawMessage(`{"remittanceInformationUnstructured":"Faktura","creditorName":"A"}`)}
	out, err := json.Marshal(TransactionOf(tx, store.KindAccount))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if m["transactionId"] != "enc!!t1" || m["creditorName"] != "A" || m["transactionAmount"].(map[string]any)["amount"] != "-123.45" {
		t.Fatalf("%s", out)
	}
	// Details that repeat an owned key lose it: no key is sent twice.
	tx.Details = json.RawMessage(`{"transactionId":"forged","transactionAmount":1,"x":2}`)
	out, _ = json.Marshal(TransactionOf(tx, store.KindAccount))
	if strings.Count(string(out), `"transactionId"`) != 1 || strings.Contains(string(out), "forged") || !strings.Contains(string(out), `"x":2`) {
		t.Fatalf("%s", out)
	}
	// Card transactions carry cardTransactionId and no valueDate.
	tx.Details = nil
	out, _ = json.Marshal(TransactionOf(tx, store.KindCardAccount))
	if !strings.Contains(string(out), `"cardTransactionId":"enc!!t1"`) || strings.Contains(string(out), "valueDate") {
		t.Fatalf("%s", out)
	}
}

// The transaction is written by hand; it must be what encoding/json
// writes of the same fields and details, byte for byte (details as
// stored: written by json.Marshal, so already escaped).
func TestTransactionMatchesJSONMarshal(t *testing.T) {
	txs := []store.Transaction{
		{ID: "enc!!t1", Booked: true, Amount: -12345, Currency: "NOK", BookingDate: "2026-11-01", ValueDate: "2026-11-02",
			Details: json.RawMessage(`{"remittanceInformationUnstructured":"Faktura \u003c3 \u0026 co","creditorName":"A"}`)},
		{ID: "enc!!t2", Booked: true, Amount: 100, Currency: "NOK", BookingDate: "2026-11-03", ValueDate: "2026-11-03",
			Details: json.RawMessage(`{"transactionId":"forged","x":2}`)},
		{ID: "enc!!t3", Amount: 5, Currency: "EUR", ValueDate: "2026-11-04"},
		{ID: "enc!!t4 <&>", Booked: true, Amount: 0, Currency: "JPY", BookingDate: "2026-11-05", Details: json.RawMessage(`{}`)},
	}
	for _, kind := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		var list []Transaction
		for i := range txs {
			j := TransactionOf(&txs[i], kind)
			if txs[i].Booked {
				j.DetailsBase = "/v1/accounts/a/transactions/"
			}
			list = append(list, j)
		}
		want := encodedByJSON(t, list)
		for i, x := range list {
			if got := x.AppendJSON(nil); string(got) != string(want[i]) {
				t.Errorf("kind %v, %s:\n got %s\nwant %s", kind, txs[i].ID, got, want[i])
			}
		}
	}
}

// encodedByJSON is each transaction as encoding/json writes its fields
// (tags, omitempty, a map of links), with the details' members after
// them: what AppendJSON must write, by other means.
func encodedByJSON(t *testing.T, list []Transaction) []json.RawMessage {
	out := []json.RawMessage{}
	for _, x := range list {
		v := struct {
			TransactionID     string                  `json:"transactionId,omitempty"`
			CardTransactionID string                  `json:"cardTransactionId,omitempty"`
			BookingDate       string                  `json:"bookingDate,omitempty"`
			ValueDate         string                  `json:"valueDate,omitempty"`
			TransactionAmount Amount                  `json:"transactionAmount"`
			Links             map[string]respond.Link `json:"_links,omitempty"`
		}{x.TransactionID, x.CardTransactionID, x.BookingDate, x.ValueDate, AmountOf(x.Amount, x.Currency), nil}
		if x.DetailsBase != "" {
			v.Links = map[string]respond.Link{"transactionDetails": respond.Get(x.DetailsBase + x.TransactionID + x.CardTransactionID)}
		}
		own, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var details map[string]json.RawMessage
		if len(x.details) > 0 {
			if err := json.Unmarshal(x.details, &details); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range reservedKeys {
			delete(details, string(k[1:len(k)-1]))
		}
		if len(details) > 0 {
			// The stored order of the members is kept: splice the
			// details as stored when nothing was dropped.
			d := x.details
			if len(details) != strings.Count(string(x.details), `":`) {
				d, _ = json.Marshal(details)
			}
			own = append(append(own[:len(own)-1], ','), d[1:]...)
		}
		out = append(out, own)
	}
	return out
}

// TestAppendJSONString: a string is written exactly as encoding/json
// writes it, whatever it holds.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "NOK", "/v1/accounts/enc!!abc/transactions/enc!!x", "<&>", `"\`, "æøå", "\x00\x1f\x7f", "\xff\xfe", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: %s, want %s", s, got[1:], want)
		}
	}
}
