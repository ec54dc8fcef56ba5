package payments

import "testing"

// periodicBody returns a valid periodic payment body of product.
func periodicBody(product string) map[string]any {
	b := paymentBody(product)
	delete(b, "requestedExecutionDate")
	b["startDate"] = "2026-12-01"
	b["endDate"] = "2027-12-01"
	b["frequency"] = "Monthly"
	b["executionRule"] = "following"
	b["dayOfExecution"] = "1"
	return b
}

func TestParsePeriodic(t *testing.T) {
	type P = Periodic
	months := func(ms ...any) []edit {
		if ms == nil {
			ms = []any{} // an empty array, not null
		}
		return []edit{set("frequency", "MonthlyVariable"), set("monthsOfExecution", ms)}
	}
	runParseCases(t, periodicBody, ParsePeriodic, []parseCase[P]{
		good("monthly", equal(P{
			Payment: Payment{
				Product: ProductDomestic, InstructedAmount: Money{"NOK", 12345},
				DebtorAccount: AccountReference{BBAN: bbanA}, CreditorAccount: AccountReference{IBAN: ibanB},
				CreditorName: "Ola Nordmann", RemittanceInformationUnstructured: "Faktura 42", EndToEndIdentification: "e2e-1",
			},
			StartDate: "2026-12-01", EndDate: "2027-12-01", Frequency: "Monthly", ExecutionRule: "following", DayOfExecution: "1",
		})),
		good[P]("sepa", nil).in(ProductSEPA),
		// The payment rules apply.
		bad[P]("payment rule", "$.instructedAmount.amount", "greater than zero", set("instructedAmount.amount", "0")),
		bad[P]("requestedExecutionDate", "$.requestedExecutionDate", "send the first execution date as startDate",
			set("requestedExecutionDate", "2026-12-01")),
		// startDate.
		good[P]("start today", nil, set("startDate", testToday)),
		bad[P]("start yesterday", "$.startDate", "must not be in the past", set("startDate", "2026-11-20")),
		bad[P]("start missing", "$.startDate", "is required", set("startDate", remove)),
		bad[P]("start not a date", "$.startDate", "ISO 8601 date", set("startDate", "01.12.2026")),
		bad[P]("start over a year ahead", "$.startDate", "at most one year ahead", set("startDate", "2027-11-22")),
		// endDate.
		good("no end", func(t *testing.T, p P) { equal("")(t, p.EndDate) }, set("endDate", remove)),
		good[P]("end on start", nil, set("endDate", "2026-12-01")),
		bad[P]("end before start", "$.endDate", "must not be before startDate", set("endDate", "2026-11-30")),
		bad[P]("end not a date", "$.endDate", "ISO 8601 date", set("endDate", "2027-02-29")),
		// frequency.
		good[P]("frequency EveryTwoWeeks", nil, set("frequency", "EveryTwoWeeks")),
		bad[P]("frequency missing", "$.frequency", "is required", set("frequency", remove)),
		bad[P]("frequency unknown", "$.frequency", "must be one of Daily, Weekly", set("frequency", "Fortnightly")),
		bad[P]("frequency in another case", "$.frequency", "must be spelt SemiAnnual", set("frequency", "semiannual")),
		// executionRule.
		good[P]("executionRule preceding", nil, set("executionRule", "preceding")),
		bad[P]("executionRule unknown", "$.executionRule", `"following" or "preceding"`, set("executionRule", "Following")),
		// dayOfExecution.
		good[P]("day 31", nil, set("dayOfExecution", "31")),
		bad[P]("day 32", "$.dayOfExecution", `"1" to "31"`, set("dayOfExecution", "32")),
		bad[P]("day 0", "$.dayOfExecution", `"1" to "31"`, set("dayOfExecution", "0")),
		bad[P]("day with leading zero", "$.dayOfExecution", "without leading zero", set("dayOfExecution", "01")),
		bad[P]("day as number", "$.dayOfExecution", "must be a string, got number", set("dayOfExecution", 1)),
		// monthsOfExecution.
		good("MonthlyVariable", func(t *testing.T, p P) { equal([]string{"1", "4", "12"})(t, p.MonthsOfExecution) },
			months("1", "4", "12")...),
		bad[P]("MonthlyVariable duplicate month", "$.monthsOfExecution[2]", "repeats the month of monthsOfExecution[0]",
			months("3", "6", "3")...),
		bad[P]("MonthlyVariable without months", "$.monthsOfExecution", "is required",
			set("frequency", "MonthlyVariable")),
		bad[P]("MonthlyVariable with empty months", "$.monthsOfExecution", "holds 0 months; send 1 to 11", months()...),
		good[P]("MonthlyVariable with 11 months", nil, months("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11")...),
		bad[P]("MonthlyVariable with all 12 months is frequency Monthly", "$.monthsOfExecution",
			"lists all 12 months, which is frequency Monthly: send frequency Monthly without monthsOfExecution",
			months("12", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "1")...),
		bad[P]("MonthlyVariable with 12 months, one repeated", "$.monthsOfExecution[11]", "repeats the month of monthsOfExecution[0]",
			months("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "1")...),
		bad[P]("MonthlyVariable with 13 months", "$.monthsOfExecution", "holds 13 months; send 1 to 11 distinct months",
			months("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "1")...),
		bad[P]("month 13", "$.monthsOfExecution[1]", `"1" to "12"`, months("1", "13")...),
		bad[P]("month with leading zero", "$.monthsOfExecution[0]", "without leading zero", months("01")...),
		bad[P]("month as number", "$.monthsOfExecution[0]", "got number", months(1)...),
		bad[P]("months not an array", "$.monthsOfExecution", "must be an array of months, got string",
			set("frequency", "MonthlyVariable"), set("monthsOfExecution", "1,2")),
		bad[P]("months with Monthly", "$.monthsOfExecution", "only allowed with frequency MonthlyVariable",
			set("monthsOfExecution", []any{"1"})),
		good[P]("null months with Monthly", nil, set("monthsOfExecution", nil)),
	})
}
