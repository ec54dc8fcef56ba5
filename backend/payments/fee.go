package payments

// The sandbox tariff of the instant product (contract: fee-information
// answers the fee of a payment body): NOK 1.00 for a payment below NOK
// 100 000, NOK 5.00 from NOK 100 000.00. The other products cost nothing.
const (
	instantFeeThreshold = 100_000_00 // NOK 100 000.00 in øre
	instantFeeLow       = 1_00       // NOK 1.00
	instantFeeHigh      = 5_00       // NOK 5.00
)

// Fee returns the fee the bank charges for payment p, in NOK: for the
// instant product (instant-norwegian-credit-transfers-straks, whose
// amounts are NOK) NOK 1.00 below NOK 100 000 and NOK 5.00 from NOK
// 100 000.00; for every other product NOK 0.00. p is a payment
// ParsePayment accepted.
func Fee(p Payment) Money {
	if p.Product != ProductInstant {
		return Money{Currency: "NOK"}
	}
	if p.InstructedAmount.Minor < instantFeeThreshold {
		return Money{Currency: "NOK", Minor: instantFeeLow}
	}
	return Money{Currency: "NOK", Minor: instantFeeHigh}
}
