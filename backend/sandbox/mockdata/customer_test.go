package mockdata

import (
	"strings"
	"testing"
)

func customerBody() any {
	return map[string]any{"customerNumber": "13039319955", "name": "Test Testperson 3", "type": "private"}
}

func TestParseCustomer(t *testing.T) {
	type C = Customer
	runParseCases(t, customerBody, ParseCustomer, []parseCase[C]{
		good("contract example", equal(C{Number: "13039319955", Name: "Test Testperson 3", Type: CustomerPrivate})),
		good("type Corporate", equal(C{Number: "910000001", Name: "Fjordfisk AS", Type: CustomerCorporate}),
			set("type", "Corporate"), set("customerNumber", "910000001"), set("name", "Fjordfisk AS")),
		good("type PRIVATE", func(t *testing.T, c C) { equal(CustomerPrivate)(t, c.Type) }, set("type", "PRIVATE")),
		bad[C]("type business", "$.type", `must be "private" or "corporate"`, set("type", "business")),
		bad[C]("type missing", "$.type", "is required", set("type", remove)),
		bad[C]("type a number", "$.type", "must be a string, got number", set("type", 1)),
		good[C]("customerNumber with letters", nil, set("customerNumber", "TEST0001")),
		good[C]("customerNumber of 35", nil, set("customerNumber", strings.Repeat("1", 35))),
		bad[C]("customerNumber with a space", "$.customerNumber", "ASCII letters and digits", set("customerNumber", "130393 19955")),
		bad[C]("customerNumber of 36", "$.customerNumber", "1 to 35", set("customerNumber", strings.Repeat("1", 36))),
		bad[C]("customerNumber missing", "$.customerNumber", "is required", set("customerNumber", remove)),
		bad[C]("customerNumber a number", "$.customerNumber", "must be a string, got number", set("customerNumber", 13039319955)),
		good[C]("name of 70", nil, set("name", strings.Repeat("Æ", 70))),
		bad[C]("name of 71", "$.name", "longer than 70", set("name", strings.Repeat("Æ", 71))),
		bad[C]("name missing", "$.name", "is required", set("name", remove)),
		bad[C]("name with a tab", "$.name", "control character U+0009", set("name", "Kari\tNordmann")),
		bad[C]("unknown field", "$.customerType", "is not a known field", set("customerType", "PRIVATE")),
		bad[C]("misspelt field", "$.custmerNumber", "did you mean customerNumber?", set("custmerNumber", "1")),
		rawBody[C]("body an array", `[]`, "$", "must be an object, got array"),
		rawBody[C]("body not JSON", `{"name":}`, "$.name", "invalid JSON"),
	})
}
