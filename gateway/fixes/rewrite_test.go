package fixes

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// realisticBodies are backend responses in the newest shape.
var realisticBodies = []string{"accounts.json", "card-accounts.json", "card-account.json", "transactions.json", "card-transactions.json"}

func readBody(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRewriteEachFix checks every rewrite both ways: with only that fix
// not in effect, the legacy shape; with every fix in effect, the input.
func TestRewriteEachFix(t *testing.T) {
	name70 := "Brukskonto for fellesutgifter i borettslaget Solsiden og Sjøsiden"
	tests := []struct {
		name   string
		legacy Set
		in     string
		want   string // "" when the body must come back untouched
	}{
		// amount-as-string
		{"amount", bitAmountAsString, `{"currency":"NOK","amount":"-12.50"}`, `{"currency":"NOK","amount":-12.50}`},
		{"amount before currency", bitAmountAsString, `{"amount":"2.00","currency":"NOK"}`, `{"amount":2.00,"currency":"NOK"}`},
		{"amount JPY no decimals", bitAmountAsString, `{"currency":"JPY","amount":"150"}`, `{"currency":"JPY","amount":150}`},
		{"amount BHD three decimals", bitAmountAsString, `{"currency":"BHD","amount":"1.500"}`, `{"currency":"BHD","amount":1.500}`},
		{"amount zero", bitAmountAsString, `{"currency":"NOK","amount":"0.00"}`, `{"currency":"NOK","amount":0.00}`},
		{"amount beyond float64", bitAmountAsString, `{"currency":"NOK","amount":"12345678901234567890123.45"}`, `{"currency":"NOK","amount":12345678901234567890123.45}`},
		{"amount with other members", bitAmountAsString, `{"currency":"NOK","amount":"5.00","x":[1,2]}`, `{"currency":"NOK","amount":5.00,"x":[1,2]}`},
		{"amount whitespace kept", bitAmountAsString, "{ \"currency\" : \"NOK\" ,\n\t\"amount\" : \"2.00\" }", "{ \"currency\" : \"NOK\" ,\n\t\"amount\" : 2.00 }"},
		{"amount escaped digits", bitAmountAsString, `{"currency":"NOK","amount":"\u0031.00"}`, `{"currency":"NOK","amount":1.00}`},
		{"amount escaped member name", bitAmountAsString, `{"\u0063urrency":"NOK","amount":"1.00"}`, `{"\u0063urrency":"NOK","amount":1.00}`},
		{"amounts anywhere", bitAmountAsString,
			`{"payments":[{"instructedAmount":{"currency":"EUR","amount":"10.00"},"debtorAccount":{"iban":"NO1","currency":"NOK"}}],"a":{"b":{"c":[{"creditLimit":{"currency":"NOK","amount":"-1"}}]}}}`,
			`{"payments":[{"instructedAmount":{"currency":"EUR","amount":10.00},"debtorAccount":{"iban":"NO1","currency":"NOK"}}],"a":{"b":{"c":[{"creditLimit":{"currency":"NOK","amount":-1}}]}}}`},
		{"amount top level", bitAmountAsString, ` {"currency":"NOK","amount":"1"} `, ` {"currency":"NOK","amount":1} `},
		{"amount already a number", bitAmountAsString, `{"currency":"NOK","amount":12.5}`, ""},
		{"amount without currency", bitAmountAsString, `{"amount":"12.00"}`, ""},
		{"amount with non-string currency", bitAmountAsString, `{"currency":null,"amount":"12.00"}`, ""},
		{"amount named twice", bitAmountAsString, `{"currency":"NOK","amount":"1.00","amount":"2.00"}`, ""},
		{"amount comma", bitAmountAsString, `{"currency":"NOK","amount":"12,50"}`, ""},
		{"amount exponent", bitAmountAsString, `{"currency":"NOK","amount":"1e3"}`, ""},
		{"amount leading zero", bitAmountAsString, `{"currency":"NOK","amount":"012.50"}`, ""},
		{"amount plus", bitAmountAsString, `{"currency":"NOK","amount":"+1.00"}`, ""},
		{"amount empty", bitAmountAsString, `{"currency":"NOK","amount":""}`, ""},
		{"amount minus only", bitAmountAsString, `{"currency":"NOK","amount":"-"}`, ""},
		{"amount trailing dot", bitAmountAsString, `{"currency":"NOK","amount":"1."}`, ""},
		{"amount leading dot", bitAmountAsString, `{"currency":"NOK","amount":".5"}`, ""},
		{"amount spaces", bitAmountAsString, `{"currency":"NOK","amount":" 1.00"}`, ""},
		{"amount words", bitAmountAsString, `{"currency":"NOK","amount":"NaN"}`, ""},
		{"amount string elsewhere", bitAmountAsString, `{"remittanceInformationUnstructured":"12.50","currency":"NOK"}`, ""},

		// cardaccount-switch-originalamount-and-transactionamount
		{"card switch", bitCardAccountSwitchAmounts,
			`{"cardTransactionId":"c1","transactionAmount":{"currency":"NOK","amount":"-1135.42"},"invoiced":true,"originalAmount":{"currency":"SEK","amount":"-1097.1"}}`,
			`{"cardTransactionId":"c1","transactionAmount":{"currency":"SEK","amount":"-1097.1"},"invoiced":true,"originalAmount":{"currency":"NOK","amount":"-1135.42"}}`},
		{"card switch original first", bitCardAccountSwitchAmounts,
			`{"originalAmount":{"currency":"SEK","amount":"1"},"cardTransactionId":"c1","transactionAmount":{"currency":"NOK","amount":"22.00"}}`,
			`{"originalAmount":{"currency":"NOK","amount":"22.00"},"cardTransactionId":"c1","transactionAmount":{"currency":"SEK","amount":"1"}}`},
		{"card switch any values", bitCardAccountSwitchAmounts, `{"cardTransactionId":null,"transactionAmount":null,"originalAmount":[1, 2]}`, `{"cardTransactionId":null,"transactionAmount":[1, 2],"originalAmount":null}`},
		{"card switch only transactionAmount", bitCardAccountSwitchAmounts, `{"cardTransactionId":"c1","transactionAmount":{"currency":"NOK","amount":"1.00"}}`, ""},
		{"card switch only originalAmount", bitCardAccountSwitchAmounts, `{"cardTransactionId":"c1","originalAmount":{"currency":"NOK","amount":"1.00"}}`, ""},
		{"card switch not a card transaction", bitCardAccountSwitchAmounts, `{"transactionId":"t1","transactionAmount":{"currency":"NOK","amount":"1.00"},"originalAmount":{"currency":"SEK","amount":"2.00"}}`, ""},
		{"card switch named twice", bitCardAccountSwitchAmounts, `{"cardTransactionId":"c1","transactionAmount":1,"originalAmount":2,"originalAmount":3}`, ""},
		{"card switch with amounts as numbers", bitCardAccountSwitchAmounts | bitAmountAsString,
			`{"cardTransactionId":"c1","transactionAmount":{"currency":"NOK","amount":"-1135.42"},"originalAmount":{"currency":"SEK","amount":"-1097.10"}}`,
			`{"cardTransactionId":"c1","transactionAmount":{"currency":"SEK","amount":-1097.10},"originalAmount":{"currency":"NOK","amount":-1135.42}}`},

		// longer-names
		{"name of an account", bitLongerNames, `{"resourceId":"a1","name":"` + name70 + `"}`, `{"resourceId":"a1","name":"Brukskonto for fellesutgifter i bor"}`},
		{"name before resourceId", bitLongerNames, `{"name":"` + name70 + `","resourceId":"a1"}`, `{"name":"Brukskonto for fellesutgifter i bor","resourceId":"a1"}`},
		{"name of an account member", bitLongerNames, `{"account":{"iban":"NO1","name":"` + name70 + `"}}`, `{"account":{"iban":"NO1","name":"Brukskonto for fellesutgifter i bor"}}`},
		{"name of a cardAccount member", bitLongerNames, `{"cardAccount":{"maskedPan":"1234","name":"` + name70 + `"}}`, `{"cardAccount":{"maskedPan":"1234","name":"Brukskonto for fellesutgifter i bor"}}`},
		{"name of 35 characters", bitLongerNames, `{"resourceId":"a1","name":"` + name70[:35] + `"}`, ""},
		{"name of 36 characters", bitLongerNames, `{"resourceId":"a1","name":"` + name70[:36] + `"}`, `{"resourceId":"a1","name":"` + name70[:35] + `"}`},
		{"name counted in runes", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat("ø", 40) + `"}`, `{"resourceId":"a1","name":"` + strings.Repeat("ø", 35) + `"}`},
		{"name of 35 runes, 70 bytes", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat("ø", 35) + `"}`, ""},
		{"name escapes count as one", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat(`\u0026`, 36) + `"}`, `{"resourceId":"a1","name":"` + strings.Repeat(`\u0026`, 35) + `"}`},
		{"name escape kept whole at the cut", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\"\n"}`, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\""}`},
		{"name surrogate pair is one", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\ud83d\udcb3b"}`, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\ud83d\udcb3"}`},
		{"name lone surrogate is one", bitLongerNames, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\ud83d\u0041b"}`, `{"resourceId":"a1","name":"` + strings.Repeat("a", 34) + `\ud83d"}`},
		{"name of an agreement", bitLongerNames, `{"psuCorporateId":"c1","name":"` + name70 + `"}`, ""},
		{"name in an array of accounts", bitLongerNames, `{"account":[{"name":"` + name70 + `"}]}`, ""},
		{"name not a string", bitLongerNames, `{"resourceId":"a1","name":["` + name70 + `"]}`, ""},
		{"name named twice", bitLongerNames, `{"resourceId":"a1","name":"` + name70 + `","name":"x"}`, ""},

		// cash-account-type-iso
		{"cash CACC", bitCashAccountTypeISO, `{"cashAccountType":"CACC"}`, `{"cashAccountType":"CURRENT"}`},
		{"cash SVGS", bitCashAccountTypeISO, `{"resourceId":"a","cashAccountType":"SVGS","x":1}`, `{"resourceId":"a","cashAccountType":"SAVINGS","x":1}`},
		{"cash LOAN", bitCashAccountTypeISO, `{"cashAccountType":"LOAN"}`, `{"cashAccountType":"LOAN"}`},
		{"cash TRAN", bitCashAccountTypeISO, `{"cashAccountType":"TRAN"}`, `{"cashAccountType":"TRANSACTING"}`},
		{"cash SLRY", bitCashAccountTypeISO, `{"cashAccountType":"SLRY"}`, `{"cashAccountType":"SALARY"}`},
		{"cash escaped", bitCashAccountTypeISO, `{"cashAccountType":"\u0043ACC"}`, `{"cashAccountType":"CURRENT"}`},
		{"cash unknown code", bitCashAccountTypeISO, `{"cashAccountType":"MGLD"}`, ""},
		{"cash lower case", bitCashAccountTypeISO, `{"cashAccountType":"cacc"}`, ""},
		{"cash not a string", bitCashAccountTypeISO, `{"cashAccountType":1}`, ""},
		{"cash named twice", bitCashAccountTypeISO, `{"cashAccountType":"CACC","cashAccountType":"SVGS"}`, ""},
	}
	r := defaultRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			got, err := r.Rewrite(in, allFixes&^tt.legacy)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
				if &got[0] != &in[0] {
					t.Errorf("Rewrite copied a body it did not change")
				}
			}
			if string(got) != want {
				t.Fatalf("legacy %q:\n got %s\nwant %s", tt.legacy, got, want)
			}
			if !bytes.Equal(in, []byte(tt.in)) {
				t.Fatalf("Rewrite modified its input")
			}
			// The newest shape, with every fix in effect, is the input.
			if newest, err := r.Rewrite(in, allFixes); err != nil || &newest[0] != &in[0] {
				t.Fatalf("Rewrite(all in effect) = %s, %v; want the input itself", newest, err)
			}
			if dup, _, _ := jsonShape(in); !dup {
				checkAgainstReference(t, in, got, tt.legacy)
			}
		})
	}
}

// TestRewriteRealistic rewrites backend responses with every fix not in
// effect against golden files, and with every subset against the
// reference model.
func TestRewriteRealistic(t *testing.T) {
	r := defaultRegistry(t)
	for _, name := range realisticBodies {
		t.Run(name, func(t *testing.T) {
			in := readBody(t, name)
			got, err := r.Rewrite(in, 0)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".json")+".legacy.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("all legacy:\n got %s\nwant %s", got, want)
			}
			_, _, inKeys := jsonShape(in)
			for legacy := Set(0); legacy <= allFixes; legacy++ {
				out, err := r.Rewrite(in, allFixes&^legacy)
				if err != nil {
					t.Fatalf("legacy %q: %v", legacy, err)
				}
				if legacy == 0 && &out[0] != &in[0] {
					t.Fatalf("every fix in effect: body not passed through")
				}
				checkAgainstReference(t, in, out, legacy)
				if _, _, outKeys := jsonShape(out); !slices.Equal(inKeys, outKeys) {
					t.Fatalf("legacy %q: member order changed:\n got %q\nwant %q", legacy, outKeys, inKeys)
				}
			}
		})
	}
}

// TestRewriteClockPinned runs the whole path (header, clock, rewrite) on
// realistic bodies: before a fix's default-since date a request without
// the header gets the legacy shape of that fix and one with the header the
// newest; from the date on, the newest either way; a fix requested before
// it was introduced is not in effect.
func TestRewriteClockPinned(t *testing.T) {
	type probe struct {
		body string
		// legacy reports whether the decoded response has the legacy shape
		// of the fix.
		legacy func(v map[string]any) bool
	}
	probes := map[string]probe{
		AmountAsString: {"accounts.json", func(v map[string]any) bool {
			a := v["accounts"].([]any)[0].(map[string]any)["balances"].([]any)[0].(map[string]any)["balanceAmount"].(map[string]any)["amount"]
			_, number := a.(json.Number)
			return number
		}},
		CardAccountSwitchAmounts: {"card-transactions.json", func(v map[string]any) bool {
			tx := v["cardTransactions"].(map[string]any)["booked"].([]any)[0].(map[string]any)
			return tx["transactionAmount"].(map[string]any)["currency"] == "SEK"
		}},
		LongerNames: {"card-accounts.json", func(v map[string]any) bool {
			return len([]rune(v["cardAccounts"].([]any)[0].(map[string]any)["name"].(string))) == 35
		}},
		CashAccountTypeISO: {"accounts.json", func(v map[string]any) bool {
			return v["accounts"].([]any)[0].(map[string]any)["cashAccountType"] == "CURRENT"
		}},
	}
	tests := []struct {
		fix        string
		now        string
		header     []string
		wantLegacy bool
	}{
		{AmountAsString, "2019-10-31T23:59:59Z", []string{"amount-as-string"}, true},
		{AmountAsString, "2019-11-01T00:00:00Z", nil, true},
		{AmountAsString, "2019-11-01T00:00:00Z", []string{"amount-as-string"}, false},
		{AmountAsString, "2020-07-31T23:59:59Z", []string{"longer-names, AMOUNT-AS-STRING"}, false},
		{AmountAsString, "2020-08-01T00:00:00Z", nil, false},
		{AmountAsString, "2026-11-21T10:00:00Z", []string{"amount-as-string"}, false},

		{CardAccountSwitchAmounts, "2020-04-30T23:59:59Z", []string{"cardaccount-switch-originalamount-and-transactionamount"}, true},
		{CardAccountSwitchAmounts, "2024-11-12T23:59:59Z", nil, true},
		{CardAccountSwitchAmounts, "2024-11-12T23:59:59Z", []string{"cardaccount-switch-originalamount-and-transactionamount"}, false},
		{CardAccountSwitchAmounts, "2024-11-13T00:00:00Z", nil, false},
		{CardAccountSwitchAmounts, "2024-11-13T00:00:00Z", []string{"cardaccount-switch-originalamount-and-transactionamount"}, false},

		{LongerNames, "2020-05-31T23:59:59Z", []string{"longer-names"}, true},
		{LongerNames, "2024-09-30T23:59:59Z", nil, true},
		{LongerNames, "2024-09-30T23:59:59Z", []string{"amount-as-string", " longer-names "}, false},
		{LongerNames, "2024-10-01T00:00:00Z", nil, false},
		{LongerNames, "2024-10-01T00:00:00Z", []string{"longer-names"}, false},

		{CashAccountTypeISO, "2023-05-31T23:59:59Z", []string{"cash-account-type-iso"}, true},
		{CashAccountTypeISO, "2024-11-12T23:59:59Z", nil, true},
		{CashAccountTypeISO, "2024-11-12T23:59:59Z", []string{"Cash-Account-Type-ISO"}, false},
		{CashAccountTypeISO, "2024-11-13T00:00:00Z", nil, false},
		{CashAccountTypeISO, "2024-11-13T00:00:00Z", []string{"cash-account-type-iso"}, false},
	}
	r := defaultRegistry(t)
	for _, tt := range tests {
		t.Run(tt.fix+"/"+tt.now+"/"+strings.Join(tt.header, ";"), func(t *testing.T) {
			p := probes[tt.fix]
			in := readBody(t, p.body)
			inEffect := r.InEffect(ParseHeader(tt.header), date(tt.now))
			if inEffect.Has(tt.fix) == tt.wantLegacy {
				t.Fatalf("in effect: %q", inEffect)
			}
			out, err := r.Rewrite(in, inEffect)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.legacy(decodeNumbers(t, out).(map[string]any)); got != tt.wantLegacy {
				t.Fatalf("legacy shape = %v, want %v; in effect %q; body %.300s", got, tt.wantLegacy, inEffect, out)
			}
			if p.legacy(decodeNumbers(t, in).(map[string]any)) {
				t.Fatalf("probe finds the legacy shape in the newest body")
			}
		})
	}
}

func TestRewriteInvalid(t *testing.T) {
	r := defaultRegistry(t)
	tests := []string{
		``, ` `, `{`, `}`, `[`, `]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":1 "b":2}`, `{a:1}`,
		`"abc`, `"a\x"`, `"\u12"`, `"\u12G4"`, "\"a\x01\"", "\"a\tb\"", `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `--1`,
		`tru`, `truee`, `nul`, `NaN`, `{"currency":"NOK","amount":"1.00"} x`, `{} {}`, "\xef\xbb\xbf{}", `{"a":1}}`,
		`{"currency":"NOK","amount":"1.00"`, `{"a":[1,{"b":}]}`, `'a'`, `{"a":1,"b"}`,
	}
	for _, body := range tests {
		in := []byte(body)
		if json.Valid(in) {
			t.Fatalf("test body %q is valid JSON", body)
		}
		out, err := r.Rewrite(in, 0)
		if !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("Rewrite(%q) err = %v, want ErrInvalidJSON", body, err)
		} else if len(err.Error()) > 200 || !strings.Contains(err.Error(), "at byte") {
			t.Errorf("Rewrite(%q) error %q: too long or without offset", body, err)
		}
		if string(out) != body {
			t.Errorf("Rewrite(%q) changed the body to %q", body, out)
		}
		// With nothing to rewrite, the body is not even looked at.
		if out, err := r.Rewrite(in, allFixes); err != nil || string(out) != body {
			t.Errorf("Rewrite(%q, all) = %q, %v; want it untouched", body, out, err)
		}
	}
}

func TestRewriteDepth(t *testing.T) {
	r := defaultRegistry(t)
	amount := `{"currency":"NOK","amount":"1.00"}`
	for _, tt := range []struct {
		depth   int
		wantErr error
	}{{MaxDepth, nil}, {MaxDepth + 1, ErrTooDeep}, {10 * MaxDepth, ErrTooDeep}} {
		// depth-1 arrays around an amount object: depth levels in all.
		body := strings.Repeat("[", tt.depth-1) + amount + strings.Repeat("]", tt.depth-1)
		out, err := r.Rewrite([]byte(body), 0)
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("depth %d: err = %v, want %v", tt.depth, err, tt.wantErr)
		}
		if tt.wantErr != nil {
			if string(out) != body {
				t.Fatalf("depth %d: body changed", tt.depth)
			}
			continue
		}
		if want := strings.Replace(body, `"1.00"`, `1.00`, 1); string(out) != want {
			t.Fatalf("depth %d: got %s", tt.depth, out)
		}
	}
	// Objects count like arrays.
	body := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	if _, err := r.Rewrite([]byte(body), 0); err != nil {
		t.Fatalf("%d nested objects: %v", MaxDepth, err)
	}
	body = strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	if _, err := r.Rewrite([]byte(body), 0); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("%d nested objects: err = %v, want ErrTooDeep", MaxDepth+1, err)
	}
}

func TestRewriteScalarsAndEmpty(t *testing.T) {
	r := defaultRegistry(t)
	for _, body := range []string{`1`, `-0.5e-7`, `"x"`, `true`, `false`, `null`, `{}`, `[]`, ` [ ] `, `{"a":[{},[],""]}`, "\t\r\n{}\n"} {
		out, err := r.Rewrite([]byte(body), 0)
		if err != nil || string(out) != body {
			t.Errorf("Rewrite(%q) = %q, %v; want it unchanged", body, out, err)
		}
	}
}
