package mockdata

import (
	"strings"
	"testing"
	"time"
)

// cardItem is a valid card transaction with every field.
func cardItem() map[string]any {
	return map[string]any{
		"cardTransactionId":    "ct-0001",
		"terminalId":           "T-778",
		"bookingDate":          "2026-11-20",
		"transactionDate":      "2026-11-20",
		"transactionAmount":    map[string]any{"currency": "NOK", "amount": -459},
		"originalAmount":       map[string]any{"currency": "EUR", "amount": -40},
		"merchantCategoryCode": "5411",
		"currencyExchange": map[string]any{
			"sourceCurrency": "EUR", "targetCurrency": "NOK", "exchangeRate": "11.4750", "unitCurrency": "EUR",
			"quotationDate": "2026-11-20", "markupFee": map[string]any{"currency": "NOK", "amount": 5},
			"markupFeePercentage": "1.25",
		},
		"cardAcceptorId": "ACQ-REMA 1000",
		"cardAcceptorAddress": map[string]any{
			"street": "Thorvald Meyers gate", "buildingNumber": "40", "postalCode": "0555", "city": "Oslo", "country": "NO",
		},
		"maskedPan":                      "5412xxxxxxxx1234",
		"transactionDetails":             "REMA 1000 GRUNERLOKKA",
		"invoiced":                       "false",
		"proprietaryBankTransactionCode": "PURCHASE",
	}
}

func cardBody(edits ...edit) []byte {
	item := cardItem()
	for _, e := range edits {
		e(item)
	}
	return marshal([]any{item})
}

type cardCase struct {
	ruleCase
	check func(t *testing.T, tx CardTransaction)
}

func cardCases() []cardCase {
	c := func(name string, path, rule string, edits ...edit) cardCase {
		return cardCase{ruleCase: ruleCase{name: name, path: path, rule: rule, edits: edits}}
	}
	ok := func(name string, check func(*testing.T, CardTransaction), edits ...edit) cardCase {
		return cardCase{ruleCase: ruleCase{name: name, edits: edits}, check: check}
	}
	withNow := func(cc cardCase, now time.Time) cardCase { cc.now = now; return cc }
	body := func(name, b, path, rule string) cardCase {
		return cardCase{ruleCase: ruleCase{name: name, body: b, path: path, rule: rule}}
	}
	eq := func(got, want any) func(*testing.T) {
		return func(t *testing.T) {
			t.Helper()
			if got != want {
				t.Errorf("got %v, want %v", got, want)
			}
		}
	}
	_ = eq
	required := []string{
		"cardTransactionId", "terminalId", "bookingDate", "transactionDate", "transactionAmount",
		"originalAmount", "merchantCategoryCode", "cardAcceptorId", "cardAcceptorAddress", "maskedPan",
		"transactionDetails", "invoiced", "proprietaryBankTransactionCode",
	}
	var cases []cardCase
	for _, f := range required {
		cases = append(cases,
			c("missing "+f, "$[0]."+f, "is required", set(f, remove)),
			c("null "+f, "$[0]."+f, "must not be null", set(f, nil)))
	}
	cases = append(cases,
		// The body.
		ok("valid full item", func(t *testing.T, tx CardTransaction) {
			want := CardTransaction{
				CardTransactionID: "ct-0001", TerminalID: "T-778", BookingDate: "2026-11-20", TransactionDate: "2026-11-20",
				TransactionAmount: Money{"NOK", -45900}, OriginalAmount: Money{"EUR", -4000}, MerchantCategoryCode: "5411",
				CardAcceptorID: "ACQ-REMA 1000",
				CardAcceptorAddress: Address{Street: "Thorvald Meyers gate", BuildingNumber: "40", PostalCode: "0555",
					City: "Oslo", Country: "NO"},
				MaskedPAN: "5412xxxxxxxx1234", TransactionDetails: "REMA 1000 GRUNERLOKKA", Invoiced: false,
				ProprietaryBankTransactionCode: "PURCHASE",
			}
			x := CurrencyExchange{SourceCurrency: "EUR", TargetCurrency: "NOK", ExchangeRate: "11.4750", UnitCurrency: "EUR",
				QuotationDate: "2026-11-20", MarkupFee: Money{"NOK", 500}, MarkupFeePercentage: "1.25"}
			if tx.CurrencyExchange == nil || *tx.CurrencyExchange != x {
				t.Errorf("currencyExchange = %+v, want %+v", tx.CurrencyExchange, x)
			}
			tx.CurrencyExchange = nil
			if tx != want {
				t.Errorf("got  %+v\nwant %+v", tx, want)
			}
		}),
		body("body is an object", `{"cardTransactionId":"1"}`, "$", "must be an array of card transactions, got object"),
		body("body is empty array", `[]`, "$", "holds 0 card transactions; send 1 to 1000"),
		body("item is not an object", `[5]`, "$[0]", "must be an object, got number"),
		body("body is not JSON", `[{"cardTransactionId":tru}]`, "$[0].cardTransactionId", "invalid JSON"),
		body("body is truncated", `[{"a":1`, "$[0]", "invalid JSON: expected ',' or '}'"),
		body("body has trailing data", `[] []`, "$", "after the JSON value"),
		body("body nests too deep", strings.Repeat("[", 33)+strings.Repeat("]", 33), "$"+strings.Repeat("[0]", 32), "nesting deeper than 32"),
		body("body has a byte order mark", "\uFEFF[]", "$", "invalid JSON"),
		body("body has a raw control character", "[\"a\tb\"]", "$[0]", "unescaped control character U+0009"),
		// Unknown and duplicate members.
		c("unknown field", "$[0].foo", "is not a known field", set("foo", 1)),
		c("field in the wrong case", "$[0].maskedPAN", "did you mean maskedPan?", set("maskedPAN", "5412xxxxxxxx1234")),
		c("unknown field in address", "$[0].cardAcceptorAddress.state", "is not a known field", set("cardAcceptorAddress.state", "x")),
		c("unknown field in currencyExchange", "$[0].currencyExchange.rate", "is not a known field", set("currencyExchange.rate", "1")),
		c("unknown field in an amount", "$[0].transactionAmount.value", "is not a known field", set("transactionAmount.value", 1)),
		c("unknown field with an odd name", "$[0]['a b\\'']", "is not a known field", set("a b'", 1)),
		c("unknown field with a bidi control in its name", "$[0]['a\\u202E']", "is not a known field", set("a\u202e", 1)),
		// Types.
		c("cardTransactionId a number", "$[0].cardTransactionId", "must be a string, got number", set("cardTransactionId", 5)),
		c("terminalId an object", "$[0].terminalId", "must be a string, got object", set("terminalId", map[string]any{})),
		c("transactionAmount a string", "$[0].transactionAmount", "must be an object, got string", set("transactionAmount", "12")),
		c("cardAcceptorAddress an array", "$[0].cardAcceptorAddress", "must be an object, got array", set("cardAcceptorAddress", []any{})),
		c("merchantCategoryCode a number", "$[0].merchantCategoryCode", "must be a string, got number", set("merchantCategoryCode", 5411)),
		c("transactionDetails a boolean", "$[0].transactionDetails", "must be a string, got boolean", set("transactionDetails", true)),
		c("transactionAmount.currency missing", "$[0].transactionAmount.currency", "is required", set("transactionAmount.currency", remove)),
		c("transactionAmount.amount missing", "$[0].transactionAmount.amount", "is required", set("transactionAmount.amount", remove)),
		c("originalAmount.currency missing", "$[0].originalAmount.currency", "is required", set("originalAmount.currency", remove)),
		c("originalAmount.amount null", "$[0].originalAmount.amount", "must not be null", set("originalAmount.amount", nil)),
		// Issue 16: the tooling's shapes, taken as they are.
		ok("country missing", func(t *testing.T, tx CardTransaction) { eq(tx.CardAcceptorAddress.Country, "")(t) }, set("cardAcceptorAddress.country", remove)),
		ok("empty terminalId", func(t *testing.T, tx CardTransaction) { eq(tx.TerminalID, "")(t) }, set("terminalId", "")),
		ok("empty strings in the string fields", func(t *testing.T, tx CardTransaction) {
			eq(tx.CardAcceptorID+tx.TransactionDetails+tx.ProprietaryBankTransactionCode+tx.MerchantCategoryCode, "")(t)
		}, set("cardAcceptorId", ""), set("transactionDetails", ""), set("proprietaryBankTransactionCode", ""), set("merchantCategoryCode", "")),
		c("terminalId missing", "$[0].terminalId", "is required", set("terminalId", remove)),
		// Amounts.
		ok("amount int32 max", func(t *testing.T, tx CardTransaction) {
			eq(tx.TransactionAmount, Money{"NOK", 214748364700})(t)
		}, set("transactionAmount.amount", 2147483647)),
		ok("amount int32 min", func(t *testing.T, tx CardTransaction) {
			eq(tx.TransactionAmount, Money{"NOK", -214748364800})(t)
		}, set("transactionAmount.amount", -2147483648)),
		ok("amount zero", func(t *testing.T, tx CardTransaction) { eq(tx.TransactionAmount.Minor, int64(0))(t) },
			set("transactionAmount.amount", 0)),
		ok("amount in JPY has no minor unit", func(t *testing.T, tx CardTransaction) { eq(tx.OriginalAmount, Money{"JPY", 1500})(t) },
			set("originalAmount", map[string]any{"currency": "JPY", "amount": 1500})),
		ok("amount in BHD has three decimals", func(t *testing.T, tx CardTransaction) { eq(tx.OriginalAmount, Money{"BHD", 5000})(t) },
			set("originalAmount", map[string]any{"currency": "BHD", "amount": 5})),
		c("amount with fraction", "$[0].transactionAmount.amount", "whole number", set("transactionAmount.amount", raw("1.5"))),
		c("amount with exponent", "$[0].transactionAmount.amount", "without fraction or exponent", set("transactionAmount.amount", raw("1e3"))),
		c("amount as string", "$[0].originalAmount.amount", "must be a number, got string", set("originalAmount.amount", "12")),
		c("amount above int32", "$[0].transactionAmount.amount", "outside the int32 range", set("transactionAmount.amount", raw("2147483648"))),
		c("amount below int32", "$[0].transactionAmount.amount", "outside the int32 range", set("transactionAmount.amount", raw("-2147483649"))),
		c("amount with 33 digits", "$[0].transactionAmount.amount", "number longer than 32", set("transactionAmount.amount", raw(strings.Repeat("9", 33)))),
		// Currencies.
		ok("currency in the list but withdrawn (BYR)", nil, set("originalAmount.currency", "BYR")),
		c("currency in lower case", "$[0].transactionAmount.currency", "ISO 4217", set("transactionAmount.currency", "nok")),
		c("currency not in the list (BYN)", "$[0].originalAmount.currency", "allowed list", set("originalAmount.currency", "BYN")),
		c("currency of four letters", "$[0].originalAmount.currency", "ISO 4217", set("originalAmount.currency", "EURO")),
		// Countries.
		ok("country SE", func(t *testing.T, tx CardTransaction) { eq(tx.CardAcceptorAddress.Country, "SE")(t) },
			set("cardAcceptorAddress.country", "SE")),
		c("country in lower case", "$[0].cardAcceptorAddress.country", "ISO 3166-1", set("cardAcceptorAddress.country", "no")),
		c("country not in the list (XK)", "$[0].cardAcceptorAddress.country", "allowed list", set("cardAcceptorAddress.country", "XK")),
		c("country alpha-3", "$[0].cardAcceptorAddress.country", "two upper-case letters", set("cardAcceptorAddress.country", "NOR")),
		// Address lengths and optional fields.
		ok("address with country only", func(t *testing.T, tx CardTransaction) { eq(tx.CardAcceptorAddress, Address{Country: "NO"})(t) },
			set("cardAcceptorAddress", map[string]any{"country": "NO"})),
		ok("address with empty and null optional fields", func(t *testing.T, tx CardTransaction) { eq(tx.CardAcceptorAddress, Address{Country: "NO"})(t) },
			set("cardAcceptorAddress", map[string]any{"country": "NO", "street": "", "city": nil})),
		ok("street of 70 runes (140 bytes)", func(t *testing.T, tx CardTransaction) { eq(len(tx.CardAcceptorAddress.Street), 140)(t) },
			set("cardAcceptorAddress.street", strings.Repeat("ø", 70))),
		c("street of 71 runes", "$[0].cardAcceptorAddress.street", "longer than 70 characters", set("cardAcceptorAddress.street", strings.Repeat("ø", 71))),
		c("buildingNumber of 17", "$[0].cardAcceptorAddress.buildingNumber", "longer than 16", set("cardAcceptorAddress.buildingNumber", strings.Repeat("1", 17))),
		c("postalCode of 17", "$[0].cardAcceptorAddress.postalCode", "longer than 16", set("cardAcceptorAddress.postalCode", strings.Repeat("1", 17))),
		c("city of 36", "$[0].cardAcceptorAddress.city", "longer than 35", set("cardAcceptorAddress.city", strings.Repeat("a", 36))),
		c("street a number", "$[0].cardAcceptorAddress.street", "must be a string", set("cardAcceptorAddress.street", 7)),
		// Id and text lengths.
		ok("ids of 35", nil, set("cardTransactionId", strings.Repeat("a", 35)), set("terminalId", strings.Repeat("b", 35)),
			set("cardAcceptorId", strings.Repeat("c", 35)), set("proprietaryBankTransactionCode", strings.Repeat("d", 35))),
		c("cardTransactionId of 36", "$[0].cardTransactionId", "longer than 35", set("cardTransactionId", strings.Repeat("a", 36))),
		c("terminalId of 36", "$[0].terminalId", "longer than 35", set("terminalId", strings.Repeat("a", 36))),
		c("cardAcceptorId of 36", "$[0].cardAcceptorId", "longer than 35", set("cardAcceptorId", strings.Repeat("a", 36))),
		c("proprietaryBankTransactionCode of 36", "$[0].proprietaryBankTransactionCode", "longer than 35",
			set("proprietaryBankTransactionCode", strings.Repeat("a", 36))),
		ok("transactionDetails of 1000", nil, set("transactionDetails", strings.Repeat("å", 1000))),
		c("transactionDetails of 1001", "$[0].transactionDetails", "longer than 1000", set("transactionDetails", strings.Repeat("å", 1001))),
		// Characters.
		ok("Norwegian letters", func(t *testing.T, tx CardTransaction) { eq(tx.TransactionDetails, "Blåbær & Østers AS")(t) },
			set("transactionDetails", "Blåbær & Østers AS")),
		ok("escaped quote and slash", func(t *testing.T, tx CardTransaction) { eq(tx.TransactionDetails, `a"b/c`)(t) },
			set("transactionDetails", raw(`"a\"b\/c"`))),
		c("escaped newline", "$[0].transactionDetails", "control character U+000A", set("transactionDetails", "a\nb")),
		c("DEL", "$[0].terminalId", "control character U+007F", set("terminalId", "a\x7fb")),
		c("C1 control", "$[0].cardAcceptorAddress.city", "C1 control character U+0085", set("cardAcceptorAddress.city", "a\u0085b")),
		c("bidi override", "$[0].transactionDetails", "bidirectional control character U+202E", set("transactionDetails", raw(`"a\u202eb"`))),
		c("emoji", "$[0].transactionDetails", "outside the Basic Multilingual Plane", set("transactionDetails", "kaffe ☕ 😀")),
		c("noncharacter", "$[0].transactionDetails", "noncharacter U+FFFF", set("transactionDetails", raw(`"\uffff"`))),
		c("lone surrogate", "$[0].transactionDetails", "not valid UTF-8", set("transactionDetails", raw(`"a\ud800b"`))),
		body("invalid UTF-8", strings.Replace(string(cardBody()), "GRUNERLOKKA", "GR\xffNERLOKKA", 1), "$[0].transactionDetails", "not valid UTF-8"),
		// maskedPan.
		ok("maskedPan 6+4 with stars", func(t *testing.T, tx CardTransaction) { eq(tx.MaskedPAN, "123456******1234")(t) },
			set("maskedPan", "123456******1234")),
		ok("maskedPan of 12", nil, set("maskedPan", "123456XX1234")),
		ok("maskedPan of 19", nil, set("maskedPan", "123456xxxxxxxxx1234")),
		c("maskedPan unmasked", "$[0].maskedPan", "masked card number", set("maskedPan", "5412345678901234")),
		c("maskedPan with a digit in the middle", "$[0].maskedPan", "masked card number", set("maskedPan", "1234567xxxxx1234")),
		c("maskedPan of 11", "$[0].maskedPan", "12 to 19", set("maskedPan", "12345xx1234")),
		c("maskedPan of 20", "$[0].maskedPan", "12 to 19", set("maskedPan", "123456xxxxxxxxxx1234")),
		c("maskedPan with dashes", "$[0].maskedPan", "masked card number", set("maskedPan", "5412-xxxx-xxxx-1234")),
		// merchantCategoryCode.
		ok("merchantCategoryCode free text", func(t *testing.T, tx CardTransaction) { eq(tx.MerchantCategoryCode, "541-A")(t) }, set("merchantCategoryCode", "541-A")),
		c("merchantCategoryCode of 36", "$[0].merchantCategoryCode", "longer than 35", set("merchantCategoryCode", strings.Repeat("5", 36))),
		// invoiced.
		ok("invoiced true", func(t *testing.T, tx CardTransaction) { eq(tx.Invoiced, true)(t) }, set("invoiced", true)),
		ok("invoiced false", func(t *testing.T, tx CardTransaction) { eq(tx.Invoiced, false)(t) }, set("invoiced", false)),
		ok("invoiced \"true\"", func(t *testing.T, tx CardTransaction) { eq(tx.Invoiced, true)(t) }, set("invoiced", "true")),
		ok("invoiced \"false\"", func(t *testing.T, tx CardTransaction) { eq(tx.Invoiced, false)(t) }, set("invoiced", "false")),
		c("invoiced \"TRUE\"", "$[0].invoiced", "must be true or false", set("invoiced", "TRUE")),
		c("invoiced \"yes\"", "$[0].invoiced", "must be true or false", set("invoiced", "yes")),
		c("invoiced 1", "$[0].invoiced", "must be true or false", set("invoiced", 1)),
		// Markup at the top level (issue 16: the description does not show
		// where the last seven fields nest).
		ok("markup at the top level", func(t *testing.T, tx CardTransaction) {
			eq(tx.CurrencyExchange.MarkupFee, Money{"NOK", 700})(t)
			eq(tx.CurrencyExchange.MarkupFeePercentage, "2.5")(t)
		}, set("currencyExchange.markupFee", remove), set("currencyExchange.markupFeePercentage", remove),
			set("markupFee", map[string]any{"currency": "NOK", "amount": 7}), set("markupFeePercentage", "2.5")),
		c("markup in both places", "$[0].markupFee", "send it once", set("markupFee", map[string]any{"currency": "NOK", "amount": 7})),
		// (issue 29, 11) the vendor's card script: the markup at the top
		// level without currencyExchange, and maskedPan "".
		ok("markup without currencyExchange", func(t *testing.T, tx CardTransaction) {
			eq(tx.CurrencyExchange == nil, true)(t)
			eq(tx.Markup != nil && tx.Markup.Fee != nil && tx.Markup.Fee.Currency == "NOK" && tx.Markup.Percentage == "2.5", true)(t)
		}, set("currencyExchange", remove), set("markupFee", map[string]any{"currency": "NOK", "amount": 7}), set("markupFeePercentage", "2.5")),
		c("markup without currencyExchange, malformed", "$[0].markupFeePercentage", "",
			set("currencyExchange", remove), set("markupFeePercentage", "-2.5")),
		ok(`maskedPan ""`, func(t *testing.T, tx CardTransaction) { eq(tx.MaskedPAN, "")(t) }, set("maskedPan", "")),
		c("markup in neither place", "$[0].currencyExchange.markupFee", "is required", set("currencyExchange.markupFee", remove)),
		ok(`invoiced ""`, func(t *testing.T, tx CardTransaction) { eq(tx.Invoiced, false)(t) }, set("invoiced", "")),
		// currencyExchange.
		ok("no currencyExchange", func(t *testing.T, tx CardTransaction) { eq(tx.CurrencyExchange == nil, true)(t) },
			set("currencyExchange", remove)),
		ok("null currencyExchange", func(t *testing.T, tx CardTransaction) { eq(tx.CurrencyExchange == nil, true)(t) },
			set("currencyExchange", nil)),
		c("currencyExchange a string", "$[0].currencyExchange", "must be an object, got string", set("currencyExchange", "EUR")),
		c("sourceCurrency not in the list", "$[0].currencyExchange.sourceCurrency", "ISO 4217", set("currencyExchange.sourceCurrency", "ABC")),
		c("targetCurrency lower case", "$[0].currencyExchange.targetCurrency", "ISO 4217", set("currencyExchange.targetCurrency", "nok")),
		c("unitCurrency a number", "$[0].currencyExchange.unitCurrency", "must be a string", set("currencyExchange.unitCurrency", 978)),
		ok("exchangeRate below 1", nil, set("currencyExchange.exchangeRate", "0.0951")),
		ok("exchangeRate whole", nil, set("currencyExchange.exchangeRate", "11")),
		c("exchangeRate zero", "$[0].currencyExchange.exchangeRate", "positive decimal", set("currencyExchange.exchangeRate", "0.000")),
		c("exchangeRate negative", "$[0].currencyExchange.exchangeRate", "positive decimal", set("currencyExchange.exchangeRate", "-1.2")),
		c("exchangeRate with exponent", "$[0].currencyExchange.exchangeRate", "positive decimal", set("currencyExchange.exchangeRate", "1e3")),
		c("exchangeRate with comma", "$[0].currencyExchange.exchangeRate", "positive decimal", set("currencyExchange.exchangeRate", "11,47")),
		c("exchangeRate ending in a dot", "$[0].currencyExchange.exchangeRate", "positive decimal", set("currencyExchange.exchangeRate", "11.")),
		c("exchangeRate a number", "$[0].currencyExchange.exchangeRate", "must be a string, got number", set("currencyExchange.exchangeRate", 11.47)),
		ok("quotationDate as date-time", func(t *testing.T, tx CardTransaction) { eq(tx.CurrencyExchange.QuotationDate, "2026-11-19")(t) },
			set("currencyExchange.quotationDate", "2026-11-19T16:00:00+01:00")),
		c("quotationDate Norwegian style", "$[0].currencyExchange.quotationDate", "ISO 8601", set("currencyExchange.quotationDate", "20.11.2026")),
		c("markupFee amount with fraction", "$[0].currencyExchange.markupFee.amount", "whole number", set("currencyExchange.markupFee.amount", raw("0.5"))),
		c("markupFee currency missing", "$[0].currencyExchange.markupFee.currency", "is required", set("currencyExchange.markupFee.currency", remove)),
		ok("markupFeePercentage zero", nil, set("currencyExchange.markupFeePercentage", "0")),
		c("markupFeePercentage with percent sign", "$[0].currencyExchange.markupFeePercentage", "decimal number of at least 0",
			set("currencyExchange.markupFeePercentage", "1.25%")),
		c("markupFeePercentage of 25 digits", "$[0].currencyExchange.markupFeePercentage", "decimal number",
			set("currencyExchange.markupFeePercentage", strings.Repeat("1", 25))),
	)
	for _, f := range currencyExchangeFields.Names {
		cases = append(cases, c("currencyExchange without "+f, "$[0].currencyExchange."+f, "is required", set("currencyExchange."+f, remove)))
	}
	cases = append(cases,
		// Dates.
		ok("dates as date-times are normalised to the civil date at their offset", func(t *testing.T, tx CardTransaction) {
			eq(tx.BookingDate+" "+tx.TransactionDate, "2026-11-19 2026-11-20")(t)
		}, set("bookingDate", "2026-11-19T23:30:00-05:00"), set("transactionDate", "2026-11-20T10:00:00Z")),
		ok("date-time with fraction of a second", nil, set("transactionDate", "2026-11-20T10:00:00.123+01:00")),
		c("date-time without offset", "$[0].bookingDate", "needs a UTC offset", set("bookingDate", "2026-11-20T10:00:00")),
		c("date in Norwegian style", "$[0].transactionDate", "ISO 8601 date", set("transactionDate", "20.11.2026")),
		c("date that does not exist", "$[0].bookingDate", "ISO 8601 date", set("bookingDate", "2026-02-30")),
		c("date with a space before the time", "$[0].bookingDate", "ISO 8601 date", set("bookingDate", "2026-11-20 10:00:00Z")),
		c("date a number", "$[0].bookingDate", "must be a string, got number", set("bookingDate", 20261120)),
		ok("booking and transaction today", nil, set("bookingDate", "2026-11-21"), set("transactionDate", "2026-11-21")),
		c("bookingDate tomorrow", "$[0].bookingDate", "must be before the current time", set("bookingDate", "2026-11-22")),
		c("transactionDate tomorrow", "$[0].transactionDate", "must be before the current time", set("transactionDate", "2026-11-22")),
		ok("date-time 59 s ahead (clock skew)", nil, set("transactionDate", "2026-11-21T12:00:59Z")),
		c("date-time 61 s ahead", "$[0].transactionDate", "must be before the current time", set("transactionDate", "2026-11-21T13:01:01+01:00")),
		withNow(ok("today in Norway, yesterday in UTC", nil, set("bookingDate", "2026-11-22"), set("transactionDate", "2026-11-22")),
			time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC)),
		withNow(c("tomorrow in Norway", "$[0].transactionDate", "today is 2026-11-21 in Norway", set("transactionDate", "2026-11-22")),
			time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)),
		ok("booking on the transaction date", nil, set("bookingDate", "2026-11-18"), set("transactionDate", "2026-11-18")),
		ok("booking before the transaction date", nil, set("bookingDate", "2026-11-17"), set("transactionDate", "2026-11-18")),
		c("booking after the transaction date", "$[0].bookingDate", "must not be after transactionDate",
			set("bookingDate", "2026-11-19"), set("transactionDate", "2026-11-18")),
		c("booking after the transaction date, as date-times", "$[0].bookingDate", "must not be after transactionDate",
			set("bookingDate", "2026-11-19T00:30:00+01:00"), set("transactionDate", "2026-11-18T23:59:00Z")),
	)
	return cases
}

func TestParseCardTransactionsRules(t *testing.T) {
	for _, tc := range cardCases() {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.body)
			if tc.body == "" {
				b = cardBody(tc.edits...)
			}
			txs, errs := ParseCardTransactions(b, tc.nowOr())
			checkErrors(t, tc.ruleCase, errs)
			if tc.path != "" {
				if txs != nil {
					t.Errorf("transactions returned with errors: %v", txs)
				}
				return
			}
			if len(txs) != 1 {
				t.Fatalf("got %d transactions, want 1", len(txs))
			}
			if tc.check != nil {
				tc.check(t, txs[0])
			}
		})
	}
}

func TestParseCardTransactionsBounds(t *testing.T) {
	items := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = cardItem()
		}
		return out
	}
	tests := []struct {
		name string
		body []byte
		n    int // transactions returned, or 0 for the one error
		rule string
	}{
		{"1000 transactions", marshal(items(1000)), 1000, ""},
		{"1001 transactions", marshal(items(1001)), 0, "holds 1001 card transactions; send 1 to 1000"},
		{"body over 2 MiB", append(append([]byte(`["`), strings.Repeat("a", MaxBodyBytes)...), `"]`...), 0, "larger than 2 MiB"},
		{"object with 101 members", []byte(`[{` + strings.Repeat(`"a":1,`, 100) + `"b":1}]`), 0, "more than 100 members"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			txs, errs := ParseCardTransactions(tc.body, testNow)
			if tc.n > 0 {
				if len(errs) != 0 || len(txs) != tc.n {
					t.Fatalf("got %d transactions, errors %v; want %d", len(txs), errs, tc.n)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Rule, tc.rule) || !strings.HasPrefix(errs[0].Path, "$") {
				t.Fatalf("want one error with %q, got %v", tc.rule, errs)
			}
		})
	}
}

// TestParseCardTransactionsAllErrors checks that every broken rule is
// reported, in body order, and that the list is bounded.
func TestParseCardTransactionsAllErrors(t *testing.T) {
	bad := cardItem()
	set("terminalId", 5)(bad)
	set("cardAcceptorAddress.street", strings.Repeat("a", 71))(bad)
	set("invoiced", "no")(bad)
	good := cardItem()
	bad2 := cardItem()
	set("transactionAmount.amount", raw("1.5"))(bad2)
	_, errs := ParseCardTransactions(marshal([]any{bad, good, bad2}), testNow)
	want := []string{"$[0].terminalId", "$[0].cardAcceptorAddress.street", "$[0].invoiced", "$[2].transactionAmount.amount"}
	if len(errs) != len(want) {
		t.Fatalf("got %v, want paths %v", errs, want)
	}
	for i, p := range want {
		if errs[i].Path != p {
			t.Errorf("error %d at %s, want %s", i, errs[i].Path, p)
		}
	}

	tests := []struct {
		name       string
		broken     int
		wantLen    int
		wantCapped bool
	}{
		{"49 errors", 49, 49, false},
		{"50 errors", 50, 50, false},
		{"51 errors", 51, 50, true},
		{"900 errors", 900, 50, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list := make([]any, tc.broken)
			for i := range list {
				it := cardItem()
				set("terminalId", remove)(it)
				list[i] = it
			}
			_, errs := ParseCardTransactions(marshal(list), testNow)
			if len(errs) != tc.wantLen {
				t.Fatalf("got %d errors, want %d", len(errs), tc.wantLen)
			}
			last := errs[len(errs)-1]
			if capped := last.Path == "$" && strings.Contains(last.Rule, "more than 49 errors"); capped != tc.wantCapped {
				t.Fatalf("last error %v, capped note wanted: %v", last, tc.wantCapped)
			}
			if errs[0].Path != "$[0].terminalId" {
				t.Errorf("first error at %s", errs[0].Path)
			}
		})
	}
}

func TestFieldErrorError(t *testing.T) {
	e := FieldError{Path: "$[0].cardAcceptorAddress.street", Rule: "is longer than 70 characters; shorten it"}
	if got, want := e.Error(), "$[0].cardAcceptorAddress.street: is longer than 70 characters; shorten it"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func BenchmarkParseCardTransactions(b *testing.B) {
	items := make([]any, 100)
	for i := range items {
		items[i] = cardItem()
	}
	body := marshal(items)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		txs, errs := ParseCardTransactions(body, testNow)
		if len(txs) != 100 || errs != nil {
			b.Fatal(errs)
		}
	}
}
