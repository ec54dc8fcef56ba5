package backend

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

func TestTransactionOutSplicesDetails(t *testing.T) {
	tx := &store.Transaction{ID: "enc!!t1", Booked: true, Amount: -12345, Currency: "NOK", BookingDate: "2026-11-01", ValueDate: "2026-11-02",
		Details: json.RawMessage(`{"remittanceInformationUnstructured":"Faktura","creditorName":"A"}`)}
	out, err := json.Marshal(transactionJSON(tx, store.KindAccount))
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
	out, _ = json.Marshal(transactionJSON(tx, store.KindAccount))
	if strings.Count(string(out), `"transactionId"`) != 1 || strings.Contains(string(out), "forged") || !strings.Contains(string(out), `"x":2`) {
		t.Fatalf("%s", out)
	}
	// Card transactions carry cardTransactionId and no valueDate.
	tx.Details = nil
	out, _ = json.Marshal(transactionJSON(tx, store.KindCardAccount))
	if !strings.Contains(string(out), `"cardTransactionId":"enc!!t1"`) || strings.Contains(string(out), "valueDate") {
		t.Fatalf("%s", out)
	}
}

func TestPageLinks(t *testing.T) {
	f := store.TransactionFilter{Booked: true, Limit: 200, Offset: 200}
	l := pageLinks("/v1/accounts/a/transactions", url.Values{"bookingStatus": {"booked"}}, f, 650)
	for name, wantOffset := range map[string]string{"first": "0", "previous": "0", "next": "400", "last": "600"} {
		u, err := url.Parse(l[name].Href)
		if err != nil || u.Query().Get("offset") != wantOffset || u.Query().Get("limit") != "200" || u.Query().Get("bookingStatus") != "booked" {
			t.Errorf("%s: %q", name, l[name].Href)
		}
	}
	l = pageLinks("/x", url.Values{}, store.TransactionFilter{Booked: true, Limit: 200}, 150)
	if _, ok := l["next"]; ok {
		t.Error("next link on the only page")
	}
	if _, ok := l["previous"]; ok {
		t.Error("previous link on the first page")
	}
}

// The page is written by hand; it must be the document json.Marshal makes
// of the same maps, byte for byte (details as stored: written by
// json.Marshal, so already escaped).
func TestTransactionsPageMatchesJSONMarshal(t *testing.T) {
	txs := []store.Transaction{
		{ID: "enc!!t1", Booked: true, Amount: -12345, Currency: "NOK", BookingDate: "2026-11-01", ValueDate: "2026-11-02",
			Details: json.RawMessage(`{"remittanceInformationUnstructured":"Faktura \u003c3 \u0026 co","creditorName":"A"}`)},
		{ID: "enc!!t2", Booked: true, Amount: 100, Currency: "NOK", BookingDate: "2026-11-03", ValueDate: "2026-11-03",
			Details: json.RawMessage(`{"transactionId":"forged","x":2}`)},
		{ID: "enc!!t3", Amount: 5, Currency: "EUR", ValueDate: "2026-11-04"},
	}
	acc := &store.Account{ID: "enc!!a1", Currency: "NOK", IBAN: "NO9386011117947"}
	for _, kind := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		var booked, pending []transactionOut
		pending = []transactionOut{}
		for i := range txs {
			j := transactionJSON(&txs[i], kind)
			if txs[i].Booked {
				j.DetailsBase = "/v1/accounts/a/transactions/"
				booked = append(booked, j)
			} else {
				pending = append(pending, j)
			}
		}
		for _, pend := range [][]transactionOut{pending, {}} {
			links := map[string]respond.Link{"account": respond.Get("/v1/accounts/a"), "next": respond.Get("/v1/accounts/a/transactions?offset=2")}
			list := map[string]any{"booked": encodedByJSON(t, booked), "pending": encodedByJSON(t, pend), "_links": links}
			want, err := json.Marshal(map[string]any{"account": reference(acc), "transactions": list})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			writeTransactionsPage(rec, "account", reference(acc), "transactions", links, booked, pend)
			if rec.Body.String() != string(want) {
				t.Fatalf("kind %v:\n got %s\nwant %s", kind, rec.Body, want)
			}
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%d %v", rec.Code, rec.Header())
			}
		}
	}
}

// encodedByJSON is each transaction as encoding/json writes its fields
// (tags, omitempty, a map of links), with the details' members after
// them: what appendJSON must write, by other means.
func encodedByJSON(t *testing.T, list []transactionOut) []json.RawMessage {
	out := []json.RawMessage{}
	for _, x := range list {
		v := struct {
			TransactionID     string                  `json:"transactionId,omitempty"`
			CardTransactionID string                  `json:"cardTransactionId,omitempty"`
			BookingDate       string                  `json:"bookingDate,omitempty"`
			ValueDate         string                  `json:"valueDate,omitempty"`
			TransactionAmount amount                  `json:"transactionAmount"`
			Links             map[string]respond.Link `json:"_links,omitempty"`
		}{x.TransactionID, x.CardTransactionID, x.BookingDate, x.ValueDate, amountOf(x.Amount, x.Currency), nil}
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

// TestPageLinksAsEncoded: each paging link carries the request's query
// with its offset and limit exactly as url.Values.Encode writes it, keys
// in order, whatever other parameters there are.
func TestPageLinksAsEncoded(t *testing.T) {
	f := store.TransactionFilter{Booked: true, Limit: 15, Offset: 30}
	for _, q := range []url.Values{
		{},
		{"bookingStatus": {"booked"}, "limit": {"15"}, "offset": {"30"}},
		{"bookingStatus": {"booked"}, "dateFrom": {"2026-01-01"}, "withBalance": {"true"}, "zz": {"a b&c", "2"}, "offset": {"x"}},
		{"pa ge": {"ø"}, "p": {""}},
	} {
		links := pageLinks("/v1/accounts/a/transactions", q, f, 100)
		for name, offset := range map[string]int{"first": 0, "previous": 15, "next": 45, "last": 90} {
			v := url.Values{}
			for k, vs := range q {
				v[k] = vs
			}
			v.Set("offset", strconv.Itoa(offset))
			v.Set("limit", "15")
			if want := "/v1/accounts/a/transactions?" + v.Encode(); links[name].Href != want {
				t.Errorf("%v %s: %s, want %s", q, name, links[name].Href, want)
			}
		}
	}
}
