package mockdata

import "github.com/obgw/obgw/backend/strictjson"

// Bounds of the mock-data bodies. A body past one of them is rejected
// whole, with one FieldError at "$".
const (
	// MaxBodyBytes bounds every mock-data body: 1000 card transactions with
	// currency exchange, pretty-printed, stay well under it.
	MaxBodyBytes = 2 << 20
	// MaxCardTransactions bounds the array of a card transactions body.
	MaxCardTransactions = 1000
	// MaxAccountTransactions bounds the array of an account transactions
	// body.
	MaxAccountTransactions = 1000
	// MaxBalances bounds the balances of one account or card account.
	MaxBalances = 20
	// MaxEngagements bounds the engagements of one agreement.
	MaxEngagements = 100
	// MaxFieldErrors bounds the FieldErrors returned for one body (the
	// bound of strictjson, which collects them).
	MaxFieldErrors = strictjson.MaxFieldErrors
)

// Lengths of text fields, in characters (runes, not bytes). They follow the
// Berlin Group / ISO 20022 text types where one exists: Max35Text for ids
// and codes, Max70Text for names and street, Max16Text for building number
// and post code, Max140Text for unstructured remittance information.
const (
	maxIDRunes      = 35
	maxNameRunes    = 70
	maxStreetRunes  = 70
	maxShortRunes   = 16
	maxCityRunes    = 35
	maxRemitRunes   = 140
	maxDetailsRunes = 1000
	maxDecimalBytes = 24
)
