package backend

import (
	"fmt"
	"strings"
	"testing"
)

// TestMockDataUpdates (issue 16): PUT of a customer, an account and a card
// account replaces what may change and keeps, with a precise error, what
// names the resource or carries its history; on both stores.
func TestMockDataUpdates(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"13039319955","name":"Test Testperson 3","type":"private"}`})
		if status != 201 {
			t.Fatalf("customer: %d %v", status, b)
		}
		cust := "/v1/sandbox/customers/" + b["customerId"].(string)
		status, b, _ = h.call(tppCall{method: "PUT", path: cust, body: `{"customerNumber":"13039319955","name":"Test Testperson Ny","type":"private"}`})
		if status != 200 || b["customerName"] != "Test Testperson Ny" {
			t.Fatalf("PUT customer: %d %v", status, b)
		}
		if _, b, _ = h.call(tppCall{method: "GET", path: cust}); b["customerName"] != "Test Testperson Ny" {
			t.Fatalf("customer after PUT: %v", b)
		}
		if status, b, _ = h.call(tppCall{method: "PUT", path: cust, body: `{"customerNumber":"24067834532","name":"X","type":"private"}`}); status != 400 || !strings.Contains(fmt.Sprint(b), "$.customerNumber") {
			t.Fatalf("PUT with another number: %d %v", status, b)
		}
		if status, b, _ = h.call(tppCall{method: "PUT", path: "/v1/sandbox/customers/enc!!nope", body: `{"customerNumber":"13039319955","name":"X","type":"private"}`}); status != 404 {
			t.Fatalf("PUT of an unknown customer: %d %v", status, b)
		}

		account := `{"customerNumber":"13039319955","accountName":"%s","bban":"09232911044","currency":"%s","balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":%d,"currency":"NOK"}}]}`
		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts", body: fmt.Sprintf(account, "Totalkonto", "NOK", 100)})
		if status != 201 {
			t.Fatalf("account: %d %v", status, b)
		}
		acc := "/v1/sandbox/accounts/" + b["id"].(string)
		status, b, _ = h.call(tppCall{method: "PUT", path: acc, body: fmt.Sprintf(account, "Sparekonto", "NOK", 250)})
		if status != 200 || b["name"] != "Sparekonto" || !strings.Contains(fmt.Sprint(b["balances"]), "250.00") {
			t.Fatalf("PUT account: %d %v", status, b)
		}
		for _, tc := range []struct{ name, body, path string }{
			{"another currency", fmt.Sprintf(account, "X", "EUR", 1), "$.currency"},
			{"another account number", strings.Replace(fmt.Sprintf(account, "X", "NOK", 1), "09232911044", "86011117947", 1), "$.iban"},
			{"another owner", strings.Replace(fmt.Sprintf(account, "X", "NOK", 1), "13039319955", "15038540189", 1), "$.customerNumber"},
		} {
			if status, b, _ := h.call(tppCall{method: "PUT", path: acc, body: tc.body}); status != 400 || !strings.Contains(fmt.Sprint(b), tc.path) {
				t.Errorf("PUT account, %s: %d %v, want 400 on %s", tc.name, status, b, tc.path)
			}
		}

		card := `{"customerNumber":"13039319955","maskedPan":"%s","currency":"NOK","creditLimit":{"currency":"NOK","amount":1000},"name":"Kort","product":"Basic Credit","status":"%s"}`
		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/card-accounts", body: fmt.Sprintf(card, "1234xxxxxxxx4321", "ENABLED")})
		if status != 201 {
			t.Fatalf("card account: %d %v", status, b)
		}
		cardPath := "/v1/sandbox/card-accounts/" + b["id"].(string)
		status, b, _ = h.call(tppCall{method: "PUT", path: cardPath, body: fmt.Sprintf(card, "1234xxxxxxxx4321", "BLOCKED")})
		if status != 200 || b["status"] != "blocked" {
			t.Fatalf("PUT card account: %d %v", status, b)
		}
		if status, b, _ = h.call(tppCall{method: "PUT", path: cardPath, body: fmt.Sprintf(card, "9999xxxxxxxx4321", "ENABLED")}); status != 400 || !strings.Contains(fmt.Sprint(b), "$.maskedPan") {
			t.Fatalf("PUT card account with another maskedPan: %d %v", status, b)
		}
		// An account is not a card account.
		if status, _, _ = h.call(tppCall{method: "PUT", path: strings.Replace(acc, "/accounts/", "/card-accounts/", 1), body: fmt.Sprintf(card, "1234xxxxxxxx4321", "ENABLED")}); status != 404 {
			t.Fatalf("PUT of an account as a card account: %d", status)
		}
	})
}
