package mockdata

import "testing"

// agreementBody is the contract's example, filled in.
func agreementBody() any {
	return map[string]any{
		"owner": "910000001", "name": "Fjordfisk AS driftsavtale",
		"engagements": []any{map[string]any{
			"customer": "13039319955", "account": map[string]any{"iban": "NO9386011117947"}, "roles": []any{"VIEW", "REGISTER"},
		}},
	}
}

func TestParseAgreement(t *testing.T) {
	type A = Agreement
	runParseCases(t, agreementBody, ParseAgreement, []parseCase[A]{
		good("contract example", equal(A{Owner: "910000001", Name: "Fjordfisk AS driftsavtale", Engagements: []Engagement{{
			Customer: "13039319955", Account: AccountReference{IBAN: "NO9386011117947"}, Roles: []string{"VIEW", "REGISTER"},
		}}})),
		good("roles in lower case", func(t *testing.T, a A) { equal([]string{"REGISTER"})(t, a.Engagements[0].Roles) },
			set("engagements.0.roles", []any{"register"})),
		good("account by bban", func(t *testing.T, a A) { equal(AccountReference{BBAN: "86011117947"})(t, a.Engagements[0].Account) },
			set("engagements.0.account", map[string]any{"bban": "86011117947"})),
		bad[A]("owner missing", "$.owner", "is required", set("owner", remove)),
		bad[A]("owner with a dash", "$.owner", "ASCII letters and digits", set("owner", "910-000-001")),
		bad[A]("name missing", "$.name", "is required", set("name", remove)),
		bad[A]("engagements missing", "$.engagements", "is required", set("engagements", remove)),
		bad[A]("engagements empty", "$.engagements", "holds 0 engagements; send 1 to 100", set("engagements", []any{})),
		bad[A]("engagement not an object", "$.engagements[0]", "must be an object, got string", set("engagements", []any{"x"})),
		bad[A]("customer missing", "$.engagements[0].customer", "is required", set("engagements.0.customer", remove)),
		bad[A]("account missing", "$.engagements[0].account", "is required", set("engagements.0.account", remove)),
		bad[A]("account without iban or bban", "$.engagements[0].account", "must hold an iban or a bban", set("engagements.0.account", map[string]any{"currency": "NOK"})),
		bad[A]("account iban invalid", "$.engagements[0].account.iban", "valid check digits", set("engagements.0.account.iban", "NO9386011117940")),
		bad[A]("roles missing", "$.engagements[0].roles", "is required", set("engagements.0.roles", remove)),
		bad[A]("roles empty", "$.engagements[0].roles", "holds 0 roles; send 1 to 2", set("engagements.0.roles", []any{})),
		bad[A]("role unknown", "$.engagements[0].roles[1]", "must be one of VIEW, REGISTER", set("engagements.0.roles.1", "ADMIN")),
		bad[A]("role twice", "$.engagements[0].roles[1]", "appears more than once", set("engagements.0.roles.1", "view")),
		bad[A]("role a number", "$.engagements[0].roles[0]", "must be a string, got number", set("engagements.0.roles.0", 1)),
		bad[A]("unknown field in an engagement", "$.engagements[0].Roles", "did you mean roles?", set("engagements.0.Roles", "VIEW")),
	})
}
