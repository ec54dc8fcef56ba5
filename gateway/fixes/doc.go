// Package fixes implements the x-accept-fix versioning of the interface
// description (section "Versioning") and contract section 6: which fixes are
// in effect for a request, and the rewrite of a newest-shape response body
// into the legacy shape of every fix that is not.
//
// The backend always answers in the newest shape. A fix is in effect when
// its default-since date has passed, or when the request names it in
// x-accept-fix and it has been introduced. For every fix of the Registry not
// in effect, Rewrite applies the legacy rewrite:
//
//   - amount-as-string: an amount object (one with "currency" and "amount"
//     members, both strings, the amount a decimal such as "-12.50") gets its
//     amount as a JSON number with the same digits (-12.50). Anywhere in the
//     body.
//   - cardaccount-switch-originalamount-and-transactionamount: in a card
//     transaction (an object with "cardTransactionId") the values of
//     "transactionAmount" and "originalAmount" are swapped; with only one of
//     them present nothing changes.
//   - longer-names: the string "name" of an account or card account (an
//     object with "resourceId", or the value of an "account" or
//     "cardAccount" member) is cut to 35 characters (Unicode code points).
//   - cash-account-type-iso: a "cashAccountType" that is an ISO 20022
//     ExternalCashAccountType1Code listed in the table of
//     cash_account_type.go becomes the proprietary name; others stay.
//
// Decisions the contract leaves open, fixed here:
//   - Dates are midnight UTC. The description gives months for Introduced;
//     the first of the month is used.
//   - A fix known to this package but absent from the Registry (left out of
//     the policy) is never rewritten: the newest shape is served.
//   - A rewrite that depends on a member named twice in one object is not
//     applied to that object (which value is meant is ambiguous).
//   - Strings are compared after JSON unescaping, so "\u0041mount" is the
//     member amount; the backend never escapes ASCII, so this path is rare.
//   - Rewrite works on tokens, not on a decoded tree: member order,
//     whitespace and the digits of every number are kept as they were; only
//     the values a rewrite replaces change. Invalid JSON, and JSON nested
//     deeper than 64 levels, come back unchanged with an error.
//   - Set.String joins names with "," (no space), sorted, for the
//     x-accept-fix response header.
package fixes
