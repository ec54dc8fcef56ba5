package payments

import "github.com/obgw/obgw/backend/strictjson"

// FieldError is one broken rule of a payment body: the JSON path of the
// value at fault, JSONPath style from the root "$" (for example
// "$.instructedAmount.amount" or "$.payments[3].creditorAccount.iban"), and
// the rule it breaks, worded so that a TPP developer knows what to change.
// The caller maps each one to a tppMessage of a 400 FORMAT_ERROR. It is
// strictjson's FieldError, shared with the other body parsers.
type FieldError = strictjson.FieldError
