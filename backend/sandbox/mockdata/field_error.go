package mockdata

import "github.com/obgw/obgw/backend/strictjson"

// FieldError is one broken rule of a request body: the JSON path of the
// value at fault, JSONPath style from the root "$" (for example
// "$[0].cardAcceptorAddress.street"), and the rule it breaks, worded so that
// a TPP developer knows what to change. The lead maps each one to a
// tppMessage of a 400 FORMAT_ERROR (bgerror.Format(e.Path, e.Rule)). It is
// strictjson's FieldError, shared with the other body parsers.
type FieldError = strictjson.FieldError
