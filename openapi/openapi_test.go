package openapi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDocumentValid: the document converts to JSON and is a valid OpenAPI
// 3.1 document.
func TestDocumentValid(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatal("JSON() is not JSON")
	}
	doc, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
}

// TestRequestExamples: the request bodies the contract and the README
// show (contract section 10's mock data, the README's payment and
// contacts) are valid by the document, and a few that obgw refuses are
// not.
func TestRequestExamples(t *testing.T) {
	doc, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, body string
		valid        bool
	}{
		{"MockCustomerRequest", `{"customerNumber":"13039319955","name":"Test Testperson 3","type":"private"}`, true},
		{"MockCustomerRequest", `{"customerNumber":"13039319955","name":"Test Testperson 3","type":"private","x":1}`, false},
		{"MockAccountRequest", `{"customerNumber":"13039319955","accountName":"Totalkonto","bban":"09232911044","iban":"NO7809232911044","currency":"NOK","product":"Totalkonto","cashAccountType":"CACC","creditLine":0,"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":18000,"currency":"NOK"}}]}`, true},
		{"MockAccountRequest", `{"customerNumber":"13039319955","bban":"09232911044","currency":"NOK","balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":"18000","currency":"NOK"}}]}`, false},
		{"MockCardAccountRequest", `{"customerNumber":"13039319955","maskedPan":"1234xxxxxxxx4321","currency":"NOK","creditLimit":{"currency":"NOK","amount":1000},"balances":[{"balanceAmount":{"currency":"NOK","amount":1000},"balanceType":"EXPECTED","referenceDate":"2026-01-01","lastChangeDateTime":"2026-01-01T10:00:00Z","lastCommittedTransaction":"..."}],"cardId":"1","cardIdVNo":"2","accountNumber":"123412341234","expiry":"2028-01-01","name":"...","product":"Basic Credit","status":"ENABLED"}`, true},
		{"MockAccountTransactionsRequest", `[{"amount":1500,"currency":"NOK","valueDate":"2026-11-20","bookingDate":"2026-11-20","remittanceInformationUnstructured":"Husleie","creditorId":"NO123","creditorName":"Utleier AS","creditorAccount":{"iban":"NO7809232911044","bban":"09232911044"},"ultimateCreditor":"Utleier","debtorName":"Kari","debtorAccount":{"bban":"09232911044"},"ultimateDebtor":"Kari","purposeCode":"RENT","bankTransactionCode":"PMNT"}]`, true},
		{"MockAccountTransactionsRequest", `[]`, false},
		{"MockCardTransactionsRequest", `[{"cardTransactionId":"c1","terminalId":"t1","bookingDate":"2026-11-20","transactionDate":"2026-11-20","transactionAmount":{"currency":"NOK","amount":-100},"originalAmount":{"currency":"EUR","amount":-9},"merchantCategoryCode":"5411","currencyExchange":{"sourceCurrency":"EUR","targetCurrency":"NOK","exchangeRate":"11.75","unitCurrency":"EUR","quotationDate":"2026-11-20","markupFee":{"currency":"NOK","amount":2},"markupFeePercentage":"1.5"},"cardAcceptorId":"a1","cardAcceptorAddress":{"street":"Storgata 1","city":"Oslo","country":"NO"},"maskedPan":"1234xxxxxxxx4321","transactionDetails":"Matbutikk","invoiced":"false","proprietaryBankTransactionCode":"PURCHASE"}]`, true},
		{"MockCardTransactionsRequest", `[{"cardTransactionId":"c1","terminalId":"t1","bookingDate":"2026-11-20","transactionDate":"2026-11-20","transactionAmount":{"currency":"NOK","amount":-100},"originalAmount":{"currency":"NOK","amount":-100},"merchantCategoryCode":"5411","cardAcceptorId":"a1","cardAcceptorAddress":{"country":"NOR"},"maskedPan":"1234xxxxxxxx4321","transactionDetails":"","invoiced":true,"proprietaryBankTransactionCode":""}]`, false},
		{"MockAgreementRequest", `{"owner":"910000001","name":"Fjordfisk AS","engagements":[{"customer":"15038540189","account":{"iban":"NO2912031010010"},"roles":["VIEW","REGISTER"]}]}`, true},
		{"PaymentInitiation", `{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"NO2912031010010"},"creditorAccount":{"iban":"NO1212031020016"},"creditorName":"Ola Nordmann","remittanceInformationUnstructured":"Husleie"}`, true},
		{"PaymentInitiation", `{"instructedAmount":{"currency":"NOK","amount":250},"debtorAccount":{"iban":"NO2912031010010"},"creditorAccount":{"iban":"NO1212031020016"},"creditorName":"Ola Nordmann"}`, false},
		{"PaymentInitiation", `{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"NO2912031010010"},"creditorAccount":{"iban":"NO1212031020016"},"creditorName":"Ola Nordmann","remittanceInformationUnstructured":"Husleie","remittanceInformationStructured":{"reference":"1234567890128"}}`, false},
		{"SigningBasketRequest", `{"paymentIds":["enc!!a","enc!!b"]}`, true},
		{"SigningBasketRequest", `{"paymentIds":["enc!!a","enc!!a"]}`, false},
		{"TPPContactsRegistration", `{"tppId":"PSDNO-FSA-987654321","emailAddresses":["drift@tpp.example"]}`, true},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.body), &v); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		s := doc.Components.Schemas[tc.schema]
		if s == nil {
			t.Fatalf("no schema %s", tc.schema)
		}
		err := s.Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
		if (err == nil) != tc.valid {
			t.Errorf("%s %s: valid %v, want %v (%v)", tc.schema, tc.body, err == nil, tc.valid, err)
		}
	}
}
