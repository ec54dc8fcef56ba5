// Package mockdata parses and validates the request bodies of the sandbox
// mock-data operations (contract section 10): card transactions (interface
// description, "Create sandbox card account transactions"), customers,
// accounts, card accounts, account transactions and agreements. It knows
// no HTTP and no store: each ParseX takes the body and the current time and
// returns either a validated value, with amounts in minor units, or every
// rule broken (at most MaxFieldErrors) as FieldErrors naming JSON paths, so
// that a TPP developer fixes a body in one round. CardTransactionsResponse
// builds the creation response of the card transactions operation.
//
// The bodies are decoded and walked with backend/strictjson, shared with
// backend/payments, rather than encoding/json, because the rules need what
// encoding/json's generic decoding loses: exact JSON types and number
// literals (1e3 and 1.5 are not int32 amounts, "12" is not a number), every
// member in body order with duplicates, and a path for syntax errors. It
// follows RFC 8259 and decodes strings exactly as encoding/json does (a
// fuzz target compares the two); refused characters are reported by the
// field that holds them, among the body's other errors
// (strictjson.FlagCharacters).
//
// Decisions the description and the contract leave open, fixed here:
//   - Unknown members are refused, naming the member (and the field it was
//     probably meant to be: another case, one or two typos away): a
//     misspelt optional field would otherwise vanish without a word.
//     Duplicate members are refused too.
//   - null counts as absent: fine for an optional field, "is required" for
//     a required one. An empty optional string also counts as absent; a
//     required string must not be empty or only spaces.
//   - Amounts are JSON integer literals within int32 (no fraction, no
//     exponent, no string), in whole currency units (contract section 10),
//     converted to minor units with money.FromWhole. Sign is free except for
//     credit lines and credit limits, which must not be negative.
//   - invoiced accepts JSON true/false and the strings "true"/"false"
//     (exactly those; the description types it as a string, tooling sends
//     both).
//   - Currencies must be in the description's ISOCurrencyCode list and
//     countries in its ISOCountryCode list, copied exactly
//     (backend/codelists): upper case, no trimming.
//   - Dates are ISO 8601 dates (2026-11-21) or RFC 3339 date-times with an
//     offset (2026-11-21T10:00:00+01:00 or ...Z); a date-time without an
//     offset is refused with a hint. Both normalise to the civil date as
//     written (the date at the value's own offset).
//   - "Before the current time": a date-time may lie at most 60 s after now
//     (the clock deviation allowed for signed requests); a date may be at
//     most today in Norway (Europe/Oslo, the bank's zone). This applies to
//     bookingDate and transactionDate of card transactions and to
//     bookingDate and valueDate of account transactions.
//   - Card transactions: bookingDate must not be after transactionDate,
//     which is the value date of a card transaction (the description's rule).
//     Account transactions: bookingDate is required, valueDate defaults to
//     it, and no order between them is imposed.
//   - Text: no C0/C1 control characters (escaped ones included), DEL, bidi
//     controls, U+FFFE/U+FFFF, characters outside the BMP (emoji), invalid
//     UTF-8 or lone surrogates (contract section 1). Lengths count
//     characters (runes): ids and codes 35 (Berlin Group Max35Text), names
//     and street 70, building number and post code 16, city 35, remittance
//     information 140, transactionDetails 1000.
//   - maskedPan: 12 to 19 characters, digits and x, X or *, with every
//     position between the first six and the last four masked (PCI DSS), so
//     that a full card number is never stored.
//   - The card transaction's members that the description marks "string,
//     required" (terminalId, merchantCategoryCode, cardAcceptorId,
//     transactionDetails, proprietaryBankTransactionCode) must be sent
//     and may be empty; merchantCategoryCode is free text of at most 35
//     characters. invoiced "" is read as false. The acceptor address's
//     country is checked when sent. exchangeRate: a positive decimal
//     string; markupFeePercentage: a decimal string of at least 0; both
//     with '.' and without sign or exponent, at most 24 characters.
//   - currencyExchange (optional) holds the fields the description lists
//     after it, all required when it is present; markupFee and
//     markupFeePercentage may instead be sent at the transaction's top
//     level (the description does not show their nesting), once, and
//     also without currencyExchange (the vendor's card script does).
//   - maskedPan "" stands for the card account's own (the vendor's card
//     script sends it); any other value must be the card's own.
//   - Customer numbers (customerNumber, owner, customer): 1 to 35 ASCII
//     letters and digits; customer type private or corporate in any case,
//     returned as PRIVATE or CORPORATE.
//   - Accounts: bban (11 digits) or iban (MOD 97 check digits; Norwegian
//     for an account of this bank), both naming the same account when both
//     are sent; the other is derived. The MOD11 check digit of a Norwegian
//     account number is not asked of mock data (the contract's own example
//     numbers lack it); payments keep it. cashAccountType is an ISO 20022 code,
//     CACC when not sent. Counterparty and agreement account references
//     take an IBAN with valid MOD 97 check digits or an 11-digit BBAN;
//     purposeCode is free text of at most 35 characters.
//   - Balances: types matched in any case and returned in Berlin Group
//     spelling; a card account takes expected or authorised, an account
//     also closingBooked, openingBooked, interimAvailable, interimBooked,
//     forwardAvailable and nonInvoiced; each type at most once, except that
//     the same balance sent twice (as contract section 10's card account
//     does) is kept once.
//   - Bounds: a body of at most MaxBodyBytes, JSON nesting 32 deep, 100
//     members per object, 65536 values, number literals of 32 characters,
//     strings of 4096 bytes (jsonscan's bounds), 1 to 1000 card or account transactions, 20 balances, 100 engagements.
package mockdata
