package payments

import "github.com/obgw/obgw/backend/strictjson"

// Bounds of the payment bodies. A body past MaxBodyBytes or
// MaxBulkBodyBytes is refused whole, with one FieldError at "$".
const (
	// MaxBodyBytes bounds a single or periodic payment body. A body with
	// every field at its longest length, every character \u-escaped and
	// pretty-printed stays under 16 KiB.
	MaxBodyBytes = 32 << 10
	// MaxBulkBodyBytes bounds a bulk payment body: MaxBulkPayments
	// payments of MaxBodyBytes each would be 3.2 MiB, but real ones are
	// under 1 KiB each.
	MaxBulkBodyBytes = 1 << 20
	// MaxBulkPayments bounds the payments of one bulk (the payments array
	// holds 1 to MaxBulkPayments entries).
	MaxBulkPayments = 100
	// MaxStructuredRemittances bounds remittanceInformationStructuredArray.
	MaxStructuredRemittances = 10
	// MaxMonthsOfExecution bounds monthsOfExecution: Berlin Group allows at
	// most 11 distinct months, since all 12 is frequency Monthly.
	MaxMonthsOfExecution = 11
	// MaxFieldErrors bounds the FieldErrors returned for one body (the
	// bound of strictjson, which collects them).
	MaxFieldErrors = strictjson.MaxFieldErrors
)

// Lengths of text fields, in characters (runes, not bytes), after the
// Berlin Group / ISO 20022 text types: Max35Text for identifiers and
// references, Max70Text for names and street, Max16Text for building
// number and post code, Max140Text for unstructured remittance.
const (
	maxIDRunes     = 35
	maxNameRunes   = 70
	maxStreetRunes = 70
	maxShortRunes  = 16
	maxTownRunes   = 35
	maxRemitRunes  = 140
)
