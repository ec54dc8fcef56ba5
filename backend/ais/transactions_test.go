package ais

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

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
// of the same maps, byte for byte.
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
		var booked, pending []resource.Transaction
		pending = []resource.Transaction{}
		for i := range txs {
			j := resource.TransactionOf(&txs[i], kind)
			if txs[i].Booked {
				j.DetailsBase = "/v1/accounts/a/transactions/"
				booked = append(booked, j)
			} else {
				pending = append(pending, j)
			}
		}
		for _, pend := range [][]resource.Transaction{pending, {}} {
			links := map[string]respond.Link{"account": respond.Get("/v1/accounts/a"), "next": respond.Get("/v1/accounts/a/transactions?offset=2")}
			// Each transaction as its MarshalJSON writes it (which
			// resource's own test holds to encoding/json's).
			list := map[string]any{"booked": booked, "pending": pend, "_links": links}
			want, err := json.Marshal(map[string]any{"account": resource.Reference(acc), "transactions": list})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			writeTransactionsPage(rec, "account", resource.Reference(acc), "transactions", links, booked, pend)
			if rec.Body.String() != string(want) {
				t.Fatalf("kind %v:\n got %s\nwant %s", kind, rec.Body, want)
			}
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%d %v", rec.Code, rec.Header())
			}
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
